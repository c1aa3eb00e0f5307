/**
 * The cache's part of an embeddings plan: which inputs were found (per input, in order), which go
 * upstream, and the arithmetic around them: the misses as an input of their own (so only they are
 * estimated, reserved and sent), the answer's vectors joined back in input order, and the tokens
 * billed for the misses shared out among them for their entries.
 * @module
 */
import type { ContentPart, EmbeddingInput, Vector } from '../../providers/embeddings-types';
import type { RawInput } from '../input';
import type { CachedVector, CacheWrite } from './cache';
import { roundUsd } from '../../catalog/usd';

/** What the lookup found for one request. */
export interface CachePlan {
  /** Store key of every input, in input order. */
  keys: string[];
  /** The usable hit of every input (undefined: miss). */
  hits: Array<CachedVector | undefined>;
  /** Indices of the inputs that go upstream, ascending. */
  misses: number[];
  /** Whether the misses' vectors are stored once the answer is sent (not under `no-store`). */
  write: boolean;
  /** The request's whole input (the plan's `norm` holds the misses only). */
  full: EmbeddingInput;
}

/** The `X-Switchyard-Cache` value: every input found, none, or some. */
export function cacheStatus(p: CachePlan): 'HIT' | 'MISS' | 'PARTIAL' {
  return p.misses.length === 0 ? 'HIT' : p.misses.length === p.keys.length ? 'MISS' : 'PARTIAL';
}

/** The inputs at `indices` of `input`, as a request would carry them. */
export function pickInputs(input: EmbeddingInput, indices: readonly number[]): RawInput {
  if (input.kind === 'text') return indices.map((i) => input.texts[i] as string);
  if (input.kind === 'tokens') return indices.map((i) => input.tokens[i] as number[]);
  return indices.map((i) => ({ content: input.items[i] as ContentPart[] }));
}

/** The answer's vectors in input order: hits where found, the upstream's (in miss order) elsewhere. */
export function joinVectors(p: CachePlan, upstream: readonly Vector[]): Vector[] {
  const out = new Array<Vector>(p.keys.length);
  for (let i = 0; i < p.keys.length; i++) out[i] = p.hits[i]?.vector as Vector;
  p.misses.forEach((index, k) => (out[index] = upstream[k] as Vector));
  return out;
}

/** Tokens and USD the hits saved (each at its endpoint's current price). */
export function savings(p: CachePlan): { tokens: number; usd: number } {
  let tokens = 0;
  let usd = 0;
  for (const h of p.hits) {
    if (!h) continue;
    tokens += h.tokens;
    usd += h.tokens * h.endpoint.pricing.prompt + h.images * h.endpoint.pricing.image;
  }
  return { tokens, usd: roundUsd(usd) };
}

/** How much of the input's size each item is (UTF-8 bytes of its text, token ids, one per other part). */
function sizes(input: EmbeddingInput, indices: readonly number[]): number[] {
  if (input.kind === 'text') return indices.map((i) => Buffer.byteLength(input.texts[i] as string, 'utf8'));
  if (input.kind === 'tokens') return indices.map((i) => (input.tokens[i] as number[]).length);
  return indices.map((i) =>
    (input.items[i] as ContentPart[]).reduce(
      (n, part) => n + (part.type === 'text' ? Buffer.byteLength(part.text, 'utf8') : 1),
      0,
    ),
  );
}

const imagesIn = (input: EmbeddingInput, i: number): number =>
  input.kind === 'multimodal'
    ? (input.items[i] as ContentPart[]).filter((part) => part.type === 'image_url').length
    : 0;

/**
 * `total` split into whole parts proportional to `weights` (largest remainders), summing to
 * `total` exactly; equal parts when every weight is 0.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w) => (sum > 0 ? (total * w) / sum : total / weights.length));
  const parts = shares.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = shares.map((s, i) => [s - Math.floor(s), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left <= 0) break;
    parts[i] = (parts[i] as number) + 1;
    left--;
  }
  return parts;
}

/**
 * The entries to write for the misses: each with its upstream vector, its share of the
 * `billedTokens` the upstream charged for all of them (an upstream reports one total per call,
 * so a share is exact for a single input and proportional to size otherwise) and its images.
 */
export function writesFor(p: CachePlan, upstream: readonly Vector[], billedTokens: number): CacheWrite[] {
  const tokens = apportion(billedTokens, sizes(p.full, p.misses));
  return p.misses.map((index, k) => ({
    key: p.keys[index] as string,
    vector: upstream[k] as Vector,
    tokens: tokens[k] as number,
    images: imagesIn(p.full, index),
  }));
}
