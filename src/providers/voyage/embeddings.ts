/** Request and response mapping for Voyage AI embeddings. */
import type { Endpoint } from '../../catalog/types';
import type { EmbeddingJob, ParsedEmbeddings } from '../embeddings-types';
import { asObject, reportedCount, textsOf, vectorsByIndex } from '../parse';
import { parseLiftingArrays, rawClaimer, type BodyBytes } from '../raw-json';
import type { VoyageEmbeddingsRequest } from './types';

/** Our `input_type` words → Voyage's two. */
const INPUT_TYPES: Record<string, 'query' | 'document'> = {
  search_query: 'query',
  query: 'query',
  search_document: 'document',
  document: 'document',
};

/** Our job → the upstream body. */
export function toRequest(job: EmbeddingJob, endpoint: Endpoint): VoyageEmbeddingsRequest {
  const body: VoyageEmbeddingsRequest = { input: textsOf(job.input), model: endpoint.upstreamModel };
  const inputType = job.inputType ? INPUT_TYPES[job.inputType.toLowerCase()] : undefined;
  if (inputType) body.input_type = inputType;
  if (job.dimensions !== undefined && endpoint.parameters.has('dimensions')) body.output_dimension = job.dimensions;
  return body;
}

/** The upstream body → vectors in input order; null when malformed. */
export function fromResponse(raw: BodyBytes): ParsedEmbeddings | null {
  const lifted = parseLiftingArrays(raw, 'embedding');
  const body = asObject(lifted?.body);
  if (!lifted || !body) return null;
  const vectors = vectorsByIndex(body.data, rawClaimer(lifted.raws));
  if (!vectors) return null;
  return {
    vectors,
    promptTokens: reportedCount(asObject(body.usage)?.total_tokens),
    imageCount: null,
    upstreamId: null,
  };
}
