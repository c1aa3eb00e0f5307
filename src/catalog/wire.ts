/**
 * The list object of a catalog model (`GET /models`, and `GET /embeddings/models` for embeddings
 * models): every field of the spec's table plus the fields the hosted service's SDK requires.
 * Built once at boot, so listing costs no work.
 * @module
 */
import { API_PREFIX } from '../http/router';
import type { CatalogModel, Endpoint, Modality, OutputModality } from './types';

type ModelFacts = Omit<CatalogModel, 'wire'>;

/** What one prompt token and one completion token cost together: the order "cheapest" means. */
export const unitPrice = (e: Endpoint): number => e.pricing.prompt + e.pricing.completion;

/** The endpoint whose prices and limits the list object shows: the cheapest. */
export function cheapestEndpoint(model: Pick<CatalogModel, 'endpoints'>): Endpoint {
  return model.endpoints.reduce((a, b) => (unitPrice(b) < unitPrice(a) ? b : a));
}

/** The list object's prices: prompt, completion, request, image always; the prompt-cache prices where the endpoint has them. */
export function wirePricing(e: Endpoint): Record<string, string> {
  const t = e.pricing.text;
  const out: Record<string, string> = {
    prompt: t.prompt,
    completion: t.completion,
    request: t.request,
    image: t.image,
  };
  if (t.input_cache_read !== undefined) out.input_cache_read = t.input_cache_read;
  if (t.input_cache_write !== undefined) out.input_cache_write = t.input_cache_write;
  return out;
}

/** Build the list item for one model; prices and limits come from its cheapest endpoint. */
export function toModelWire(model: ModelFacts): Readonly<Record<string, unknown>> {
  const cheapest = cheapestEndpoint(model);
  const inputs = unionInputs(model.endpoints);
  const outputs = unionOutputs(model.endpoints);
  const parameters = [...new Set(model.endpoints.flatMap((e) => [...e.parameters]))].sort();
  return Object.freeze({
    id: model.id,
    canonical_slug: model.id,
    hugging_face_id: model.huggingFaceId,
    name: model.name,
    created: model.created,
    description: model.description,
    context_length: model.contextLength,
    architecture: {
      modality: `${inputs.join('+')}->${outputs.join('+')}`,
      input_modalities: inputs,
      output_modalities: outputs,
      tokenizer: model.tokenizer,
      instruct_type: model.instructType,
    },
    pricing: wirePricing(cheapest),
    top_provider: {
      context_length: cheapest.contextLength,
      max_completion_tokens: cheapest.maxCompletionTokens,
      is_moderated: false,
    },
    per_request_limits: null,
    supported_parameters: parameters,
    default_parameters: null,
    supported_voices: null,
    knowledge_cutoff: null,
    expiration_date: null,
    links: { details: `${API_PREFIX}/models/${model.id}/endpoints` },
  });
}

const INPUT_ORDER: Modality[] = ['text', 'image', 'audio', 'video', 'file'];
const OUTPUT_ORDER: OutputModality[] = ['text', 'image', 'audio', 'embeddings'];

function unionInputs(endpoints: readonly Endpoint[]): Modality[] {
  const all = new Set<Modality>();
  for (const e of endpoints) for (const m of e.inputModalities) all.add(m);
  return INPUT_ORDER.filter((m) => all.has(m));
}

function unionOutputs(endpoints: readonly Endpoint[]): OutputModality[] {
  const all = new Set<OutputModality>();
  for (const e of endpoints) for (const m of e.outputModalities) all.add(m);
  return OUTPUT_ORDER.filter((m) => all.has(m));
}
