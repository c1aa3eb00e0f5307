/** Request and response mapping for the OpenAI embeddings wire format. */
import type { Endpoint } from '../../catalog/types';
import type { ContentPart, EmbeddingJob, ParsedEmbeddings, Vector } from '../embeddings-types';
import { asObject, reportedCount, textsOf, vectorsByIndex } from '../parse';
import { parseLiftingArrays, rawClaimer, type BodyBytes } from '../raw-json';
import { base64Length } from '../vectors';
import type { OpenAIEmbeddingsRequest } from './types';

/**
 * Multimodal items for the OpenAI wire: text-only items become plain strings (OpenAI-compatible
 * servers take only strings or token ids); items with other parts go as `{content}` objects, which
 * only endpoints declaring those modalities are ever sent.
 */
function multimodal(items: ContentPart[][]): string[] | Array<{ content: ContentPart[] }> {
  if (items.every((parts) => parts.every((p) => p.type === 'text'))) return textsOf({ kind: 'multimodal', items });
  return items.map((content) => ({ content }));
}

/** Our job → the upstream body. Base64 is requested only from upstreams that can pass it through. */
export function toRequest(job: EmbeddingJob, endpoint: Endpoint): OpenAIEmbeddingsRequest {
  const { input } = job;
  const body: OpenAIEmbeddingsRequest = {
    model: endpoint.upstreamModel,
    input: input.kind === 'text' ? input.texts : input.kind === 'tokens' ? input.tokens : multimodal(input.items),
    encoding_format: job.encoding === 'base64' && endpoint.provider.base64Passthrough ? 'base64' : 'float',
  };
  if (job.dimensions !== undefined && endpoint.parameters.has('dimensions')) body.dimensions = job.dimensions;
  if (job.user !== undefined) body.user = job.user;
  return body;
}

/** The upstream body → vectors in input order (float arrays kept as raw JSON); null when malformed. */
export function fromResponse(raw: BodyBytes, job: EmbeddingJob): ParsedEmbeddings | null {
  const lifted = parseLiftingArrays(raw, 'embedding');
  const body = asObject(lifted?.body);
  if (!lifted || !body) return null;
  const claim = rawClaimer(lifted.raws);
  // A lifted array shows up as its ordinal; a string only counts when we asked for base64, and
  // only when it decodes to whole float32 values, none of them NaN or ±Infinity.
  const vectors = vectorsByIndex<Vector>(body.data, (emb) =>
    typeof emb === 'number'
      ? claim(emb)
      : job.encoding === 'base64' && typeof emb === 'string' && base64Length(emb) > 0
        ? emb
        : undefined,
  );
  if (!vectors) return null;
  const usage = asObject(body.usage);
  return {
    vectors,
    promptTokens: reportedCount(usage?.prompt_tokens) ?? reportedCount(usage?.total_tokens),
    imageCount: null,
    upstreamId: typeof body.id === 'string' ? body.id : null,
  };
}
