/**
 * Circuit breaker per provider endpoint, with its state in the shared Kv (Redis when configured,
 * so replicas agree; the in-process twin when embedded). Consecutive failures open it; after the
 * cooldown one caller gets a half-open probe; the probe's success closes it, its failure reopens it.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { Kv } from '../kv/kv';
import type { Metrics } from '../observability/metrics';
import type { Logger } from '../observability/logger';
import { CHECK, CircuitState, FAILURE, PEEK, SUCCESS } from './breaker-scripts';

export { CircuitState } from './breaker-scripts';

/** Breaker settings (`breaker.*` in the config). */
export interface BreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
}

/** What {@link CircuitBreaker.acquire} granted. */
export interface CircuitPermit {
  state: CircuitState;
  /** Consecutive failures before this attempt (0 on a healthy endpoint: nothing to report on success). */
  failures: number;
}

const CLOSED: [CircuitState, number] = [CircuitState.Closed, 0];
const HEALTHY: CircuitPermit = { state: CircuitState.Closed, failures: 0 };

/**
 * How long a replica trusts its last look at a healthy circuit (closed, no failures) before
 * asking the shared store again. It spares the hot path a Redis round trip per request; a
 * circuit another replica opens is seen here within this time (a failure seen here is seen at once).
 */
export const HEALTHY_CACHE_MS = 1000;

/** The breaker over a Kv; its only local state is the short-lived "known healthy" cache. */
export class CircuitBreaker {
  private readonly healthyUntil = new Map<string, number>();

  constructor(
    private readonly kv: Kv,
    private readonly metrics: Metrics,
    private readonly opts: BreakerOptions,
    private readonly now: () => number,
    private readonly logger?: Logger,
  ) {}

  /** The breaker fails open: if the Kv (Redis) is unreachable, calls proceed as if the circuit were closed. */
  private async safely<T>(what: string, fn: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.logger?.warn('circuit breaker state unavailable; failing open', { op: what, err });
      return fallback;
    }
  }

  private key(e: Endpoint): string {
    return `cb:${e.id}`;
  }

  private gauge(e: Endpoint, state: CircuitState): void {
    this.metrics.circuitState.set({ provider: e.provider.slug, model: e.modelId }, state);
  }

  /**
   * The permit when this replica knows the circuit healthy (see {@link HEALTHY_CACHE_MS}), else
   * undefined: then {@link acquire} asks the store. Synchronous: the hot path's usual answer
   * costs no promise.
   */
  acquireNow(endpoint: Endpoint): CircuitPermit | undefined {
    return (this.healthyUntil.get(endpoint.id) ?? 0) > this.now() ? HEALTHY : undefined;
  }

  /** May `endpoint` be called now? Open circuits answer `Open` and must be skipped. */
  async acquire(endpoint: Endpoint): Promise<CircuitPermit> {
    const known = this.acquireNow(endpoint);
    if (known) return known;
    const now = this.now();
    const [state, failures] = await this.safely('check', () => this.kv.run(CHECK, [this.key(endpoint)], [now, this.opts.cooldownMs]), CLOSED);
    if (state !== CircuitState.Closed) this.gauge(endpoint, state);
    if (state === CircuitState.Closed && failures === 0) this.healthyUntil.set(endpoint.id, now + HEALTHY_CACHE_MS);
    else this.healthyUntil.delete(endpoint.id);
    return { state, failures };
  }

  /** The circuit's state for a report, without taking a probe; null when the store is unreachable. */
  async peek(endpoint: Endpoint): Promise<{ state: CircuitState; failures: number } | null> {
    const reply = await this.safely('peek', () => this.kv.run(PEEK, [this.key(endpoint)], [this.now()]), null);
    return reply && { state: reply[0], failures: reply[1] };
  }

  /**
   * Report how the permitted attempt went (`healthy` false for timeouts, overloads, 5xx, network
   * errors). Undefined when there is nothing to record: a success on a circuit with no failures,
   * the hot path's usual case, returns no promise to wait for.
   */
  report(endpoint: Endpoint, permit: CircuitPermit, healthy: boolean): Promise<void> | undefined {
    if (healthy && permit.state === CircuitState.Closed && permit.failures === 0) return undefined;
    return this.record(endpoint, permit, healthy);
  }

  private async record(endpoint: Endpoint, permit: CircuitPermit, healthy: boolean): Promise<void> {
    if (healthy) {
      await this.safely('success', () => this.kv.run(SUCCESS, [this.key(endpoint)], []), CLOSED);
      this.gauge(endpoint, CircuitState.Closed);
      return;
    }
    this.healthyUntil.delete(endpoint.id);
    const wasProbe = permit.state === CircuitState.HalfOpen ? 1 : 0;
    const args = [this.now(), this.opts.failureThreshold, this.opts.cooldownMs, wasProbe];
    const [state] = await this.safely('failure', () => this.kv.run(FAILURE, [this.key(endpoint)], args), CLOSED);
    this.gauge(endpoint, state);
  }
}
