/**
 * The cache's step of planning POST /embeddings: when the caller's workspace has the cache on,
 * look every input up and narrow the plan to the misses (their input and their estimate, which is
 * all the budget step then reserves; nothing when every input was found).
 * @module
 */
import type { ApiKeyRecord } from '../../keys/types';
import { normaliseInput, type NormalisedInput } from '../input';
import type { EmbeddingsBody, EmbeddingsPlan } from '../types';
import type { EmbeddingsCache } from './cache';
import { inputKeys } from './keys';
import { pickInputs, type CachePlan } from './plan';
import { modeFor, type CacheDirectives, type CacheMode } from './settings';

/** Who asks: the key (its organization and workspace) and the request's cache directives. */
export interface CacheCaller {
  key: ApiKeyRecord;
  directives: CacheDirectives;
}

/**
 * The request's directives when its workspace has the cache on (even if they skip both read and
 * write: the answer still says MISS), else null; null too when the switch cannot be read.
 */
async function cacheMode(cache: EmbeddingsCache, caller: CacheCaller): Promise<CacheMode | null> {
  try {
    const on = cache.settings.enabled(caller.key.workspaceId);
    return (typeof on === 'boolean' ? on : await on) ? modeFor(caller.directives) : null;
  } catch {
    return null;
  }
}

/**
 * `plan` with the cache's part (`plan.cache`), or `plan` unchanged when the cache is off for the
 * caller. `estimate` prices a narrowed input as the plan's own estimate was priced.
 */
export async function withCacheLookup(
  cache: EmbeddingsCache,
  scope: 'organization' | 'workspace',
  plan: EmbeddingsPlan,
  body: EmbeddingsBody,
  caller: CacheCaller,
  estimate: (norm: NormalisedInput) => number,
): Promise<EmbeddingsPlan> {
  const mode = await cacheMode(cache, caller);
  if (!mode) return plan;
  const { key } = caller;
  const tenant = scope === 'workspace' ? `w:${key.workspaceId}` : `o:${key.orgId}`;
  const full = plan.norm.input;
  const keys = inputKeys({ tenant, model: plan.model, dimensions: body.dimensions, inputType: body.input_type }, full);
  const found = mode.read
    ? await cache.lookup(keys, plan.candidates, body.encoding_format ?? 'float')
    : { hits: new Array<undefined>(keys.length), answered: true };
  const { hits } = found;
  const misses: number[] = [];
  for (let i = 0; i < keys.length; i++) if (!hits[i]) misses.push(i);
  // A store that failed or was too slow to answer is not written to by this request either.
  const cachePlan: CachePlan = { keys, hits, misses, write: mode.write && found.answered, full };
  if (misses.length === keys.length) return { ...plan, cache: cachePlan };
  if (misses.length === 0) return { ...plan, estimateUsd: 0, cache: cachePlan };
  const norm = normaliseInput(pickInputs(full, misses));
  return { ...plan, norm, estimateUsd: estimate(norm), cache: cachePlan };
}
