/** Request and response mapping for Gemini batchEmbedContents. */
import type { Endpoint } from '../../catalog/types';
import type { EmbeddingJob, ParsedEmbeddings } from '../embeddings-types';
import { asObject, isVector, textsOf } from '../parse';
import { parseJson, wholeBody, type BodyBytes } from '../raw-json';
import type { GeminiBatchEmbedRequest } from './types';

/** Our `input_type` words → Gemini task types. */
const TASK_TYPES: Record<string, string> = {
  search_query: 'RETRIEVAL_QUERY',
  query: 'RETRIEVAL_QUERY',
  search_document: 'RETRIEVAL_DOCUMENT',
  document: 'RETRIEVAL_DOCUMENT',
  classification: 'CLASSIFICATION',
  clustering: 'CLUSTERING',
  semantic_similarity: 'SEMANTIC_SIMILARITY',
  question_answering: 'QUESTION_ANSWERING',
  fact_verification: 'FACT_VERIFICATION',
  code_retrieval_query: 'CODE_RETRIEVAL_QUERY',
};

/** Our job → the upstream body. */
export function toRequest(job: EmbeddingJob, endpoint: Endpoint): GeminiBatchEmbedRequest {
  const model = `models/${endpoint.upstreamModel}`;
  const taskType = job.inputType ? TASK_TYPES[job.inputType.toLowerCase()] : undefined;
  return {
    requests: textsOf(job.input).map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(taskType ? { taskType } : {}),
      ...(job.dimensions !== undefined && endpoint.parameters.has('dimensions')
        ? { outputDimensionality: job.dimensions }
        : {}),
    })),
  };
}

/** The upstream body → vectors; Gemini reports no usage, so tokens are counted by the gateway. */
export function fromResponse(raw: BodyBytes): ParsedEmbeddings | null {
  const list = asObject(parseJson(wholeBody(raw).toString('utf8')))?.embeddings;
  if (!Array.isArray(list)) return null;
  const vectors: number[][] = [];
  for (const e of list) {
    const values = asObject(e)?.values;
    if (!isVector(values)) return null;
    vectors.push(values);
  }
  return { vectors, promptTokens: null, imageCount: null, upstreamId: null };
}
