/**
 * Key pools: a provider with several keys (`<SLUG>_API_KEYS`, YAML `api_keys`) uses them in turn,
 * by smooth weighted round robin. A key answered 401 or 403 is taken out (for {@link OUT_MS},
 * so a key replaced by the operator, which has another fingerprint, starts afresh); a key answered
 * 429 rests for its `Retry-After`. Picks read local state only (no round trip per request); every
 * change is written to the shared Kv and announced, so every replica's pool agrees, and a
 * replica that may have missed an announcement re-reads the lot. A provider with one key has no
 * pool: there is nothing to turn to, and its circuits decide as before. Secrets never leave this
 * module but in the request that uses them; state, logs and `/providers` name keys by label.
 * @module
 */
import { createHash } from 'node:crypto';
import type { ProviderInfo, ProviderKey } from '../catalog/types';
import type { Kv } from '../kv/kv';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { UpstreamFailure } from '../transport/outcome';
import { PendingWork } from '../usage/pending-work';
import { KEY_MARK, KEY_READ } from './key-pool-scripts';

/** How long a refused (401/403) key stays out. */
export const OUT_MS = 24 * 3600_000;
/** How long a key answered 429 without `Retry-After` rests. */
export const DEFAULT_REST_MS = 10_000;
const CHANNEL = 'key-pools';

/** One key's state as `/providers` shows it. */
export interface KeyReading {
  label: string;
  state: 'active' | 'resting' | 'out';
  /** When a resting key comes back (ISO time); null otherwise. */
  until: string | null;
  /** The status that took it out; null unless out. */
  status: number | null;
}

/** What an attempt authenticates with: a key, none (the provider needs none, or has one), or no usable key. */
export type KeyPick = { key: ProviderKey | null } | { failure: UpstreamFailure };

interface Slot {
  key: ProviderKey;
  fingerprint: string;
  current: number;
  restUntil: number;
  outStatus: number | null;
  outUntil: number;
}

/** The pools of every provider with two or more keys, one per gateway (on the routing state). */
export class KeyPools {
  private readonly pools = new Map<string, Slot[]>();
  private readonly writes = new PendingWork();
  /** Settles once this replica has subscribed and read the shared state (or failed to, logged). */
  readonly ready: Promise<void>;

  constructor(
    providers: readonly ProviderInfo[],
    private readonly kv: Kv,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {
    for (const p of providers) {
      if (p.keys.length < 2) continue;
      this.pools.set(
        p.slug,
        p.keys.map((key) => ({
          key,
          fingerprint: fingerprint(key.secret),
          current: 0,
          restUntil: 0,
          outStatus: null,
          outUntil: 0,
        })),
      );
      for (const key of p.keys) this.metrics.providerKeyState.set({ provider: p.slug, key: key.label }, 0);
    }
    this.ready = this.pools.size === 0 ? Promise.resolve() : this.start();
  }

  private async start(): Promise<void> {
    this.kv.onMessagesMissed(() => void this.loadAll());
    try {
      await this.kv.subscribe(CHANNEL, (slug) => void this.load(slug));
    } catch (err) {
      this.logger.warn('key pool announcements unavailable; pools stay local until Redis is back', { err });
    }
    await this.loadAll();
  }

  private async loadAll(): Promise<void> {
    await Promise.all([...this.pools.keys()].map((slug) => this.load(slug)));
  }

  private stateKey(slug: string, slot: Slot): string {
    return `kp:{${slug}}:${slot.fingerprint}`;
  }

  /** Re-read one pool's shared state. */
  private async load(slug: string): Promise<void> {
    const slots = this.pools.get(slug);
    if (!slots) return;
    try {
      const states = await this.kv.run(
        KEY_READ,
        slots.map((s) => this.stateKey(slug, s)),
        [],
      );
      slots.forEach((slot, i) => applyState(slot, states[i] ?? null));
      slots.forEach((slot) => this.gauge(slug, slot));
    } catch (err) {
      this.logger.warn("key pool state unavailable; using this replica's view", { provider: slug, err });
    }
  }

  /** The key for one attempt on `provider`. */
  pick(provider: ProviderInfo): KeyPick {
    const slots = this.pools.get(provider.slug);
    if (!slots) return { key: provider.keys[0] ?? null };
    const now = this.now();
    let total = 0;
    let best: Slot | undefined;
    for (const s of slots) {
      if (!usable(s, now)) continue;
      s.current += s.key.weight;
      total += s.key.weight;
      if (!best || s.current > best.current) best = s;
    }
    if (best) {
      best.current -= total;
      return { key: best.key };
    }
    return { failure: exhausted(slots, now) };
  }

  /**
   * What the upstream said to an attempt with `key`: a 401/403 takes it out, a 429 rests it.
   * Returns whether it did (the attempt may then be made with the next key); the shared write
   * goes on in the background and never fails.
   */
  settle(provider: ProviderInfo, key: ProviderKey | null, status: number | null, retryAfterSeconds?: number): boolean {
    const slot = key && this.pools.get(provider.slug)?.find((s) => s.key === key);
    if (!slot || (status !== 401 && status !== 403 && status !== 429)) return false;
    const now = this.now();
    let state: string;
    let until: number;
    if (status === 429) {
      until = now + (retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : DEFAULT_REST_MS);
      slot.restUntil = until;
      state = 'rest';
    } else {
      until = now + OUT_MS;
      slot.outStatus = status;
      slot.outUntil = until;
      state = `out:${status}`;
      this.logger.warn('provider key refused; taken out of its pool', {
        provider: provider.slug,
        key: slot.key.label,
        status,
      });
    }
    this.metrics.providerKeyRefusals.inc({ provider: provider.slug, key: slot.key.label, status: String(status) });
    this.gauge(provider.slug, slot);
    this.writes.track(this.share(provider.slug, slot, state, until));
    return true;
  }

  private async share(slug: string, slot: Slot, state: string, until: number): Promise<void> {
    try {
      await this.kv.run(KEY_MARK, [this.stateKey(slug, slot)], [state, until, Math.max(1, until - this.now())]);
      await this.kv.publish(CHANNEL, slug);
    } catch (err) {
      this.logger.warn('key pool state not shared; other replicas learn it from their own attempts', {
        provider: slug,
        err,
      });
    }
  }

  private gauge(slug: string, s: Slot): void {
    const now = this.now();
    const value = s.outStatus !== null && s.outUntil > now ? 2 : s.restUntil > now ? 1 : 0;
    this.metrics.providerKeyState.set({ provider: slug, key: s.key.label }, value);
  }

  /** Resolves once every shared write begun has settled (shutdown). */
  drain(): Promise<void> {
    return this.writes.drain();
  }

  /** Each key of `provider`'s pool by label and state; empty for a provider without a pool. */
  readings(provider: ProviderInfo): KeyReading[] {
    const now = this.now();
    return (this.pools.get(provider.slug) ?? []).map((s) => {
      if (s.outStatus !== null && s.outUntil > now)
        return { label: s.key.label, state: 'out', until: null, status: s.outStatus };
      if (s.restUntil > now)
        return { label: s.key.label, state: 'resting', until: new Date(s.restUntil).toISOString(), status: null };
      return { label: s.key.label, state: 'active', until: null, status: null };
    });
  }
}

function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}

function usable(s: Slot, now: number): boolean {
  return !(s.outStatus !== null && s.outUntil > now) && s.restUntil <= now;
}

/** A shared `state|until` (or none) applied to a slot. */
function applyState(slot: Slot, value: string | null): void {
  const [state = '', untilText = '0'] = (value ?? '').split('|');
  const until = Number(untilText);
  if (state === 'rest') slot.restUntil = Math.max(slot.restUntil, until);
  else if (state.startsWith('out:')) {
    slot.outStatus = Number(state.slice(4));
    slot.outUntil = until;
  } else {
    slot.outStatus = null;
    slot.restUntil = 0;
  }
}

/** Why no key is usable: every key out (a provider-side failure), or some resting (a rate limit, until the first is back). */
function exhausted(slots: readonly Slot[], now: number): UpstreamFailure {
  const resting = slots.filter((s) => !(s.outStatus !== null && s.outUntil > now)).map((s) => s.restUntil);
  if (resting.length === 0) return { outcome: 'server', status: null, reason: 'every key of the provider was refused' };
  const seconds = Math.max(1, Math.ceil((Math.min(...resting) - now) / 1000));
  return {
    outcome: 'rate_limited',
    status: 429,
    retryAfterSeconds: seconds,
    reason: 'every key of the provider is rate limited',
  };
}
