/**
 * API keys by hash, cached in process and kept coherent across replicas (see
 * {@link CoherentCache}): authentication costs a hash and a map lookup on the hot path, and a
 * deleted or disabled key stops working on every replica within milliseconds.
 * @module
 */
import type { Database } from '../store/db';
import type { Kv } from '../kv/kv';
import type { Metrics } from '../observability/metrics';
import type { ApiKeyRecord } from '../keys/types';
import { findKeyForAuth } from '../keys/repository';
import { CoherentCache } from '../kv/coherent-cache';

/** Options for {@link KeyCache}. */
export interface KeyCacheOptions {
  ttlMs: number;
  max: number;
}

/** Cached, replica-coherent key lookup by hash. */
export class KeyCache extends CoherentCache<ApiKeyRecord> {
  constructor(db: Database, kv: Kv, metrics: Metrics, options: KeyCacheOptions) {
    super(kv, metrics, { name: 'keys', ...options, load: (hash) => findKeyForAuth(db, hash) });
  }
}
