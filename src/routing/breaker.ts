/**
 * Circuit breakers per provider endpoint, with their state in the shared Kv (Redis when
 * configured, so replicas agree; the in-process twin when embedded). Each endpoint has a shared
 * circuit and one per organization (see `breaker-scripts.ts`): an organization's consecutive
 * failures open its own circuit, and only a streak with failures from two or more organizations
 * opens the shared one, so what one tenant's inputs provoke never takes a provider away from the
 * others. After the cooldown one caller gets a half-open probe; its success closes the circuit,
 * its failure reopens it.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { Kv } from '../kv/kv';
import type { Metrics } from '../observability/metrics';
import type { Logger } from '../observability/logger';
import { CHECK, CircuitState, FAILURE, PEEK, Probe, SUCCESS } from './breaker-scripts';

export { CircuitState } from './breaker-scripts';

/** Breaker settings (`breaker.*` in the config). */
export interface BreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
}

/** What {@link Circuits.acquire} granted. */
export interface CircuitPermit {
  state: CircuitState;
  /** Consecutive failures before this attempt (0 on a healthy endpoint: nothing to report on success). */
  failures: number;
  /** The circuit whose half-open probe this attempt holds, if any. */
  probe?: Probe;
}

/** One organization's view of the circuits: what the fallback runner asks and tells. */
export interface Circuits {
  /** The permit when this replica knows the circuits healthy, else undefined (then call {@link acquire}). */
  acquireNow(endpoint: Endpoint): CircuitPermit | undefined;
  /** May `endpoint` be called now? Open circuits answer `Open` and must be skipped. */
  acquire(endpoint: Endpoint): Promise<CircuitPermit>;
  /**
   * Report how the permitted attempt went (`healthy` false for timeouts, overloads, 5xx, network
   * errors). Undefined when there is nothing to record: a success on healthy circuits, the hot
   * path's usual case, returns no promise to wait for.
   */
  report(endpoint: Endpoint, permit: CircuitPermit, healthy: boolean): Promise<void> | undefined;
}

const CLOSED: [CircuitState, number, Probe] = [CircuitState.Closed, 0, Probe.None];
const CLOSED_PAIR: [CircuitState, number] = [CircuitState.Closed, 0];
const HEALTHY: CircuitPermit = { state: CircuitState.Closed, failures: 0 };

/**
 * How long a replica trusts its last look at healthy circuits (closed, no failures) before
 * asking the shared store again. It spares the hot path a Redis round trip per request; a
 * circuit another replica opens is seen here within this time (a failure seen here is seen at once).
 */
export const HEALTHY_CACHE_MS = 1000;

/** Past this many remembered (endpoint, organization) pairs the "known healthy" cache starts afresh. */
const HEALTHY_CACHE_MAX = 50_000;

/** The breakers over a Kv; their only local state is the short-lived "known healthy" cache. */
export class CircuitBreaker {
  private readonly healthyUntil = new Map<string, number>();

  constructor(
    private readonly kv: Kv,
    private readonly metrics: Metrics,
    private readonly opts: BreakerOptions,
    private readonly now: () => number,
    private readonly logger?: Logger,
  ) {}

  /** `orgId`'s view, for one fallback run. */
  forOrg(orgId: string): Circuits {
    return {
      acquireNow: (endpoint) => this.acquireNow(endpoint, orgId),
      acquire: (endpoint) => this.acquire(endpoint, orgId),
      report: (endpoint, permit, healthy) => this.report(endpoint, orgId, permit, healthy),
    };
  }

  /** The breaker fails open: if the Kv (Redis) is unreachable, calls proceed as if the circuit were closed. */
  private async safely<T>(what: string, fn: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.logger?.warn('circuit breaker state unavailable; failing open', { op: what, err });
      return fallback;
    }
  }

  /** The shared circuit's key and `orgId`'s, in one Redis Cluster slot. */
  private keys(e: Endpoint, orgId: string): string[] {
    return [`cb:{${e.id}}`, `cb:{${e.id}}:${orgId}`];
  }

  /** The gauge has no organization label (bounded labels): it shows the last state seen for the endpoint. */
  private gauge(e: Endpoint, state: CircuitState): void {
    this.metrics.circuitState.set({ provider: e.provider.slug, model: e.modelId }, state);
  }

  private acquireNow(endpoint: Endpoint, orgId: string): CircuitPermit | undefined {
    return (this.healthyUntil.get(`${endpoint.id}\n${orgId}`) ?? 0) > this.now() ? HEALTHY : undefined;
  }

  private async acquire(endpoint: Endpoint, orgId: string): Promise<CircuitPermit> {
    const known = this.acquireNow(endpoint, orgId);
    if (known) return known;
    const now = this.now();
    const [state, failures, probe] = await this.safely(
      'check',
      () => this.kv.run(CHECK, this.keys(endpoint, orgId), [now, this.opts.cooldownMs]),
      CLOSED,
    );
    if (state !== CircuitState.Closed) this.gauge(endpoint, state);
    const cacheKey = `${endpoint.id}\n${orgId}`;
    if (state === CircuitState.Closed && failures === 0) {
      if (this.healthyUntil.size >= HEALTHY_CACHE_MAX) this.healthyUntil.clear();
      this.healthyUntil.set(cacheKey, now + HEALTHY_CACHE_MS);
    } else {
      this.healthyUntil.delete(cacheKey);
    }
    return probe === Probe.None ? { state, failures } : { state, failures, probe };
  }

  /** The circuit state `orgId` sees, for a report, without taking a probe; null when the store is unreachable. */
  async peek(endpoint: Endpoint, orgId: string): Promise<{ state: CircuitState; failures: number } | null> {
    const reply = await this.safely('peek', () => this.kv.run(PEEK, this.keys(endpoint, orgId), [this.now()]), null);
    return reply && { state: reply[0], failures: reply[1] };
  }

  private report(
    endpoint: Endpoint,
    orgId: string,
    permit: CircuitPermit,
    healthy: boolean,
  ): Promise<void> | undefined {
    if (healthy && permit.state === CircuitState.Closed && permit.failures === 0) return undefined;
    return this.record(endpoint, orgId, permit, healthy);
  }

  private async record(endpoint: Endpoint, orgId: string, permit: CircuitPermit, healthy: boolean): Promise<void> {
    const keys = this.keys(endpoint, orgId);
    if (healthy) {
      await this.safely('success', () => this.kv.run(SUCCESS, keys, []), CLOSED_PAIR);
      this.gauge(endpoint, CircuitState.Closed);
      return;
    }
    this.healthyUntil.delete(`${endpoint.id}\n${orgId}`);
    const args = [this.now(), this.opts.failureThreshold, this.opts.cooldownMs, permit.probe ?? Probe.None, orgId];
    const [state] = await this.safely('failure', () => this.kv.run(FAILURE, keys, args), CLOSED_PAIR);
    this.gauge(endpoint, state);
  }
}
