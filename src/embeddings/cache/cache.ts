/**
 * The embeddings cache: per-input lookups before the budget step and entry writes after the
 * answer is sent. It is never worse than no cache: a lookup the store has not answered within
 * `lookupTimeoutMs` (or that fails) counts as all misses and the request goes upstream; a damaged
 * or expired entry is a miss (and the answer's write replaces it); writes are bounded
 * (`maxPendingWrites`, more are dropped; the store's byte bound, more are not written) and their
 * failures only counted, so a full or failing cache never fails a request.
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import type { Config } from '../../config';
import type { Logger } from '../../observability/logger';
import type { Metrics } from '../../observability/metrics';
import { errorFields } from '../../observability/error-fields';
import type { Vector } from '../../providers/embeddings-types';
import { decodeEntry, encodeEntry } from './entry';
import type { CacheSettings } from './settings';
import type { CacheStore, StoreEntry } from './store';
import { answerFrom, storedForm } from './vectors';

/** What a lookup found: the usable hit of each key, and whether the store answered at all. */
export interface LookupResult {
  /** Per key, in order; undefined is a miss. */
  hits: Array<CachedVector | undefined>;
  /**
   * False when the store failed or was too slow: the request then also writes nothing, so a
   * struggling store is not handed more work by the very requests it could not serve.
   */
  answered: boolean;
}

/** A usable hit: the vector to answer with, its length, and what it cost when it was embedded. */
export interface CachedVector {
  vector: Vector;
  length: number;
  endpoint: Endpoint;
  tokens: number;
  images: number;
}

/** One input to store after the answer: its key, vector, and attributed tokens and images. */
export interface CacheWrite {
  key: string;
  vector: Vector;
  tokens: number;
  images: number;
}

const TIMED_OUT = Symbol('timed out');
/** Store failures are logged at most this often (they are all counted). */
const LOG_EVERY_MS = 10_000;

/** Lookups and writes over one {@link CacheStore}. */
export class EmbeddingsCache {
  private pendingWrites = 0;
  /** Writes under way (each never rejects), for {@link settled}. */
  private readonly writing = new Set<Promise<void>>();
  private lastLogged = -Infinity;

  constructor(
    readonly store: CacheStore,
    readonly settings: CacheSettings,
    private readonly deps: { config: Config; metrics: Metrics; logger: Logger; clock: () => number },
  ) {}

  /**
   * The usable hit for each key (undefined: miss). An entry is usable when it is intact, not
   * expired, from an endpoint among `candidates` (the request's `provider` preferences allow its
   * producer), and can give `encoding` byte for byte. One answer never mixes vector lengths, so a
   * hit whose length differs from the first hit's is a miss (the upstream's vector replaces it).
   */
  async lookup(
    keys: readonly string[],
    candidates: readonly Endpoint[],
    encoding: 'float' | 'base64',
  ): Promise<LookupResult> {
    const { metrics, config, clock } = this.deps;
    const found = await this.fetch(keys, config.embeddingsCache.lookupTimeoutMs);
    const hits = new Array<CachedVector | undefined>(keys.length);
    if (!found) {
      metrics.embeddingsCacheLookups.inc({ result: 'skipped' }, keys.length);
      return { hits, answered: false };
    }
    const now = clock();
    let hitCount = 0;
    let length = 0;
    for (let i = 0; i < keys.length; i++) {
      const raw = found[i];
      if (!raw) continue;
      const entry = decodeEntry(raw, !this.store.inProcess);
      if (!entry) {
        metrics.embeddingsCacheCorrupt.inc();
        continue;
      }
      if (entry.expiresAt <= now) continue;
      const endpoint = candidates.find((e) => e.id === entry.endpointId);
      const vector = endpoint && answerFrom(entry, encoding);
      if (!endpoint || !vector || (length !== 0 && entry.length !== length)) continue;
      length = entry.length;
      hits[i] = { vector, length, endpoint, tokens: entry.tokens, images: entry.images };
      hitCount++;
    }
    if (hitCount > 0) metrics.embeddingsCacheLookups.inc({ result: 'hit' }, hitCount);
    if (hitCount < keys.length) metrics.embeddingsCacheLookups.inc({ result: 'miss' }, keys.length - hitCount);
    return { hits, answered: true };
  }

  /** The store's answer, or null when it failed or took longer than `timeoutMs`. */
  private async fetch(keys: readonly string[], timeoutMs: number): Promise<Array<Buffer | null> | null> {
    let timer: NodeJS.Timeout | undefined;
    // When the timer fires, the answer may already be waiting in the socket (a busy event loop
    // runs timers before it polls I/O): give the poll phase one turn before giving up.
    const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => setImmediate(resolve, TIMED_OUT), timeoutMs);
    });
    const read = this.store.getMany(keys);
    try {
      const result = await Promise.race([read, timeout]);
      if (result === TIMED_OUT) {
        read.catch(() => undefined); // given up on: the timeout is what is reported
        this.storeFailed('lookup', new Error(`embeddings cache lookup took longer than ${timeoutMs} ms`));
        return null;
      }
      return result;
    } catch (err) {
      this.storeFailed('lookup', err);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Store `writes` produced by `endpoint` (call once the answer is sent). Never throws; an input
   * whose vector cannot be reproduced exactly from an entry is skipped, and entries the store's
   * bound has no room for are not written (`outcome="full"`).
   */
  write(writes: readonly CacheWrite[], endpoint: Endpoint): void {
    const { config, metrics, clock } = this.deps;
    const { ttlMs, maxPendingWrites } = config.embeddingsCache;
    const expiresAt = clock() + ttlMs;
    const entries: StoreEntry[] = [];
    for (const w of writes) {
      if (this.pendingWrites >= maxPendingWrites) {
        metrics.embeddingsCacheWrites.inc({ outcome: 'dropped' });
        continue;
      }
      const form = storedForm(w.vector);
      if (!form) {
        metrics.embeddingsCacheWrites.inc({ outcome: 'skipped' });
        continue;
      }
      entries.push({
        key: w.key,
        value: encodeEntry(
          { endpointId: endpoint.id, expiresAt, tokens: w.tokens, images: w.images, ...form },
          !this.store.inProcess,
        ),
      });
      this.pendingWrites++;
    }
    if (entries.length === 0) return;
    const putting = this.put(entries, ttlMs);
    this.writing.add(putting);
    void putting.then(() => this.writing.delete(putting));
  }

  /** Resolves once every write started so far has ended (stored, refused or failed). */
  async settled(): Promise<void> {
    await Promise.all(this.writing);
  }

  /** Write `entries` (counted in `pendingWrites` already) once the store's bound admits them; never rejects. */
  private async put(entries: readonly StoreEntry[], ttlMs: number): Promise<void> {
    const { metrics } = this.deps;
    let admitted: boolean;
    try {
      admitted = this.store.reserve ? await this.store.reserve(entries) : true;
    } catch (err) {
      this.pendingWrites -= entries.length;
      metrics.embeddingsCacheWrites.inc({ outcome: 'failed' }, entries.length);
      return this.storeFailed('write', err);
    }
    if (!admitted) {
      this.pendingWrites -= entries.length;
      metrics.embeddingsCacheWrites.inc({ outcome: 'full' }, entries.length);
      return;
    }
    await Promise.all(
      entries.map((e) =>
        this.store.set(e.key, e.value, ttlMs).then(
          () => {
            this.pendingWrites--;
            metrics.embeddingsCacheWrites.inc({ outcome: 'stored' });
            metrics.embeddingsCacheBytesWritten.inc(e.value.length);
          },
          (err: unknown) => {
            this.pendingWrites--;
            metrics.embeddingsCacheWrites.inc({ outcome: 'failed' });
            this.storeFailed('write', err);
          },
        ),
      ),
    );
  }

  /** Close what the store holds open of its own (a separate Redis connection). */
  async close(): Promise<void> {
    await this.store.close?.();
  }

  private storeFailed(op: 'lookup' | 'write', err: unknown): void {
    const now = Date.now();
    if (now - this.lastLogged < LOG_EVERY_MS) return;
    this.lastLogged = now;
    this.deps.logger.warn(`embeddings cache ${op} failed; requests go upstream meanwhile`, {
      store: this.store.kind,
      ...errorFields(err),
    });
  }
}
