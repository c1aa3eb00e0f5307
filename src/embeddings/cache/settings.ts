/**
 * Whether a request may use the embeddings cache: its workspace's switch (`is_embeddings_cache_enabled`,
 * null = the gateway default `embeddingsCache.enabled`), then the request's own directives
 * (`cache: false` in the body or `Cache-Control: no-cache` skip the read; `no-store` skips the
 * write). The workspace switch is read through a replica-coherent cache, invalidated on PATCH.
 * @module
 */
import type { Database } from '../../store/db';
import type { Kv } from '../../kv/kv';
import type { Metrics } from '../../observability/metrics';
import { CoherentCache } from '../../kv/coherent-cache';
import { findEmbeddingsCacheSetting } from '../../workspaces/repository';

/** What a request does with the cache. */
export interface CacheMode {
  read: boolean;
  write: boolean;
}

/** The request's own say: the body's `cache` field and its `Cache-Control` header. */
export interface CacheDirectives {
  bodyCache: boolean | undefined;
  cacheControl: string | null;
}

/** The directive words of a `Cache-Control` header value, lower-cased. */
function directiveWords(header: string | null): Set<string> {
  if (!header) return new Set();
  return new Set(header.split(',').map((d) => d.trim().toLowerCase().split('=')[0] as string));
}

/** The mode of a request whose workspace has the cache on. */
export function modeFor(d: CacheDirectives): CacheMode {
  const words = directiveWords(d.cacheControl);
  return { read: d.bodyCache !== false && !words.has('no-cache'), write: !words.has('no-store') };
}

/** Each workspace's cache switch, cached per replica. */
export class CacheSettings {
  private readonly cache: CoherentCache<{ enabled: boolean | null }>;

  constructor(
    db: Database,
    kv: Kv,
    metrics: Metrics,
    private readonly defaultEnabled: boolean,
    o: { ttlMs: number; max: number },
  ) {
    this.cache = new CoherentCache(kv, metrics, {
      name: 'embeddings-cache-settings',
      ttlMs: o.ttlMs,
      max: o.max,
      load: async (id) => {
        const enabled = await findEmbeddingsCacheSetting(db, id);
        return enabled === undefined ? null : { enabled };
      },
    });
  }

  /** Subscribe to invalidations; once at boot. */
  start(): Promise<void> {
    return this.cache.start();
  }

  /** Whether the workspace has the cache on (synchronous when its switch is cached, as it nearly always is). */
  enabled(workspaceId: string): boolean | Promise<boolean> {
    const known = this.cache.peek(workspaceId);
    if (known !== undefined) return known?.enabled ?? this.defaultEnabled;
    return this.cache.get(workspaceId).then((s) => s?.enabled ?? this.defaultEnabled);
  }

  /** A workspace's switch changed: drop it here and on every replica. */
  changed(workspaceId: string): Promise<void> {
    return this.cache.invalidate(workspaceId);
  }
}
