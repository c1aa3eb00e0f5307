/**
 * The `/embeddings/models` object of a catalog model: every field of the spec's table plus the
 * fields the hosted service's SDK requires. Built once at boot, so listing costs no work.
 * @module
 */
import { API_PREFIX } from '../http/router';
import type { CatalogModel, Endpoint, Modality } from './types';

type ModelFacts = Omit<CatalogModel, 'wire'>;

/** Build the list item for one model; prices come from its cheapest endpoint. */
export function toModelWire(model: ModelFacts): Readonly<Record<string, unknown>> {
  const cheapest = model.endpoints.reduce((a, b) => (b.pricing.prompt < a.pricing.prompt ? b : a));
  const inputs = unionModalities(model.endpoints);
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
      modality: `${inputs.join('+')}->embeddings`,
      input_modalities: inputs,
      output_modalities: ['embeddings'],
      tokenizer: model.tokenizer,
      instruct_type: model.instructType,
    },
    pricing: {
      prompt: cheapest.pricing.text.prompt,
      completion: '0',
      request: cheapest.pricing.text.request,
      image: cheapest.pricing.text.image,
    },
    top_provider: { context_length: cheapest.contextLength, max_completion_tokens: null, is_moderated: false },
    per_request_limits: null,
    supported_parameters: parameters,
    default_parameters: null,
    supported_voices: null,
    knowledge_cutoff: null,
    expiration_date: null,
    links: { details: `${API_PREFIX}/models/${model.id}/endpoints` },
  });
}

const MODALITY_ORDER: Modality[] = ['text', 'image', 'audio', 'video', 'file'];

function unionModalities(endpoints: readonly Endpoint[]): Modality[] {
  const all = new Set<Modality>();
  for (const e of endpoints) for (const m of e.inputModalities) all.add(m);
  return MODALITY_ORDER.filter((m) => all.has(m));
}
