/**
 * Upstream batch limits: a request may carry more inputs than one upstream call takes (Cohere
 * embeds at most 96 texts per call, Gemini's batchEmbedContents 100 requests). Such a job is cut
 * into consecutive chunks, sent as parallel calls to the same endpoint, and the parts are joined
 * back in input order, as one attempt: any failed chunk fails the attempt.
 * @module
 */
import type { EmbeddingInput, EmbeddingJob, ParsedEmbeddings } from '../providers/embeddings-types';
import { countOrNull } from '../providers/parse';

/** Inputs in `input` (embeddings it yields). */
export function inputCount(input: EmbeddingInput): number {
  return input.kind === 'text'
    ? input.texts.length
    : input.kind === 'tokens'
      ? input.tokens.length
      : input.items.length;
}

function sliceInput(input: EmbeddingInput, start: number, end: number): EmbeddingInput {
  if (input.kind === 'text') return { kind: 'text', texts: input.texts.slice(start, end) };
  if (input.kind === 'tokens') return { kind: 'tokens', tokens: input.tokens.slice(start, end) };
  return { kind: 'multimodal', items: input.items.slice(start, end) };
}

/** `job` as chunks of at most `maxBatch` inputs (the job itself when it fits). */
export function splitJob(job: EmbeddingJob, maxBatch: number | undefined): EmbeddingJob[] {
  const n = inputCount(job.input);
  if (maxBatch === undefined || n <= maxBatch) return [job];
  const jobs: EmbeddingJob[] = [];
  for (let start = 0; start < n; start += maxBatch)
    jobs.push({ ...job, input: sliceInput(job.input, start, start + maxBatch) });
  return jobs;
}

/** Null if any value is missing; NaN if any is not a count (a negative part must not hide in a plausible sum). */
const sumOrNull = (values: Array<number | null>): number | null => {
  if (values.includes(null)) return null;
  return values.every((v) => countOrNull(v) !== null) ? (values as number[]).reduce((a, b) => a + b, 0) : NaN;
};

/** The chunks' results as one, vectors in input order; counts are null if any chunk lacks them. */
export function joinParts(parts: ParsedEmbeddings[]): ParsedEmbeddings {
  if (parts.length === 1) return parts[0] as ParsedEmbeddings;
  return {
    vectors: parts.flatMap((p) => p.vectors),
    promptTokens: sumOrNull(parts.map((p) => p.promptTokens)),
    imageCount: sumOrNull(parts.map((p) => p.imageCount)),
    upstreamId: parts[0]?.upstreamId ?? null,
  };
}
