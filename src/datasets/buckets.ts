/**
 * The dataset's context buckets: a request falls in exactly one, by its prompt tokens. The
 * bounds are decimal (1K = 1,000 tokens) and inclusive at the top; the last bucket is open so
 * that no request falls outside every bucket.
 * @module
 */

/** Bucket names of the `context_bucket` parameter, smallest first. */
export const CONTEXT_BUCKETS = ['1K', '10K', '100K', '1M', '10M'] as const;
export type ContextBucket = (typeof CONTEXT_BUCKETS)[number];

/**
 * Upper bounds (inclusive) of prompt tokens per bucket: 1K is 0–1,000, 10K 1,001–10,000, 100K
 * 10,001–100,000, 1M 100,001–1,000,000, 10M everything above 1,000,000.
 */
export const BUCKET_MAX: Readonly<Record<ContextBucket, number>> = {
  '1K': 1_000,
  '10K': 10_000,
  '100K': 100_000,
  '1M': 1_000_000,
  '10M': Infinity,
};

/** The bucket of a prompt-token count. */
export function bucketOf(promptTokens: number): ContextBucket {
  for (const b of CONTEXT_BUCKETS) if (promptTokens <= BUCKET_MAX[b]) return b;
  return '10M';
}

/** The same rule as SQL over `tokens_prompt` (bounds are the constants above, not user input). */
export const BUCKET_SQL = `CASE WHEN tokens_prompt <= 1000 THEN '1K' WHEN tokens_prompt <= 10000 THEN '10K' WHEN tokens_prompt <= 100000 THEN '100K' WHEN tokens_prompt <= 1000000 THEN '1M' ELSE '10M' END`;
