/**
 * API key secrets: generation, hashing and the masked label. The secret exists only in the
 * creation response; the database, caches and logs only ever see its SHA-256 hex (`hash`).
 * @module
 */
import { hash, randomBytes } from 'node:crypto';

/** Prefix of every secret Switchyard issues (`sk-sy-v1-` + 64 hex). */
export const KEY_PREFIX = 'sk-sy-v1-';

/** A fresh secret with 256 bits of entropy. */
export function generateSecret(): string {
  return KEY_PREFIX + randomBytes(32).toString('hex');
}

/**
 * The key's identity: SHA-256 hex of the whole secret. Also the `hash` path parameter. Every
 * request hashes its bearer key, so this is the one-shot `crypto.hash` (about half the time of
 * a `createHash` object).
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Masked preview shown in listings, e.g. `sk-sy-v1-3fa...9c2`. */
export function labelFor(secret: string): string {
  const body = secret.startsWith(KEY_PREFIX) ? secret.slice(KEY_PREFIX.length) : secret;
  const head = secret.startsWith(KEY_PREFIX) ? KEY_PREFIX : '';
  return `${head}${body.slice(0, 3)}...${body.slice(-3)}`;
}
