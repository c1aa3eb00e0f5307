/** Request and response mapping for Cohere v2 embed. */
import type { Endpoint } from '../../catalog/types';
import type { EmbeddingJob, ParsedEmbeddings } from '../embeddings-types';
import { asObject, isVector, reportedCount } from '../parse';
import { parseJson, wholeBody, type BodyBytes } from '../raw-json';
import type { CohereEmbedRequest } from './types';

/** Our `input_type` words → Cohere's (it requires one; documents are the neutral default). */
const INPUT_TYPES: Record<string, string> = {
  search_query: 'search_query',
  query: 'search_query',
  search_document: 'search_document',
  document: 'search_document',
  classification: 'classification',
  clustering: 'clustering',
  image: 'image',
};

/** Our job → the upstream body. */
export function toRequest(job: EmbeddingJob, endpoint: Endpoint): CohereEmbedRequest {
  const body: CohereEmbedRequest = {
    model: endpoint.upstreamModel,
    input_type: INPUT_TYPES[job.inputType?.toLowerCase() ?? ''] ?? 'search_document',
    embedding_types: ['float'],
  };
  if (job.input.kind === 'multimodal') body.inputs = job.input.items.map((content) => ({ content }));
  else if (job.input.kind === 'text') body.texts = job.input.texts;
  else throw new Error('cohere does not take token ids');
  if (job.dimensions !== undefined && endpoint.parameters.has('dimensions')) body.output_dimension = job.dimensions;
  return body;
}

/** The upstream body → vectors; null when malformed. */
export function fromResponse(raw: BodyBytes): ParsedEmbeddings | null {
  const body = asObject(parseJson(wholeBody(raw).toString('utf8')));
  const float = asObject(body?.embeddings)?.float;
  if (!body || !Array.isArray(float) || !float.every(isVector)) return null;
  const billed = asObject(asObject(body.meta)?.billed_units);
  return {
    vectors: float,
    promptTokens: reportedCount(billed?.input_tokens),
    imageCount: reportedCount(billed?.images),
    upstreamId: typeof body.id === 'string' ? body.id : null,
  };
}
