/**
 * Generation ids in the hosted service's form: `gen-emb-<unix seconds>-<20 alphanumerics>`, and
 * `gen-<unix seconds>-<20 alphanumerics>` for chat.
 * @module
 */
import { randomFillSync } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SUFFIX = 20;

/** Random bytes drawn in bulk: one CSPRNG call per 200 ids instead of one per request. */
const pool = Buffer.alloc(SUFFIX * 200);
let offset = pool.length;

/** A new embeddings generation id; `nowMs` is the request's clock. */
export function generationId(nowMs: number, prefix = 'gen-emb'): string {
  if (offset + SUFFIX > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  let suffix = '';
  // 62 does not divide 256, so the first 8 letters are slightly likelier; irrelevant for ids.
  for (let i = offset; i < offset + SUFFIX; i++) suffix += ALPHABET[(pool[i] as number) % 62];
  offset += SUFFIX;
  return `${prefix}-${Math.floor(nowMs / 1000)}-${suffix}`;
}

/** The variant of a model id (`vendor/model:free` → `free`), or null when it names none. */
export function modelVariant(model: string): string | null {
  const colon = model.lastIndexOf(':');
  return colon > model.lastIndexOf('/') && colon < model.length - 1 ? model.slice(colon + 1) : null;
}
