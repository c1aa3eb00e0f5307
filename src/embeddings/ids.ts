/**
 * Generation ids in the hosted service's form: `gen-emb-<unix seconds>-<20 alphanumerics>`.
 * @module
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new embeddings generation id; `nowMs` is the request's clock. */
export function generationId(nowMs: number): string {
  const bytes = randomBytes(20);
  let suffix = '';
  // 62 does not divide 256, so the first 8 letters are slightly likelier; irrelevant for ids.
  for (const b of bytes) suffix += ALPHABET[b % 62];
  return `gen-emb-${Math.floor(nowMs / 1000)}-${suffix}`;
}
