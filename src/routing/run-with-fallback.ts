/**
 * The fallback runner: tries candidates in order, each within a per-attempt timeout and all
 * within an overall deadline, skipping open circuits. An attempt's result is a value; the loop
 * decides on its `outcome`: ok → done; client (the request is bad) → stop; anything else → next.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { UpstreamFailure, UpstreamOutcome } from '../transport/outcome';
import { CircuitState, type Circuits } from './breaker';

/** One attempt: what `error.metadata.attempts` lists (no upstream bodies, no secrets), plus the endpoint and its wall time. */
export interface AttemptRecord {
  provider: string;
  outcome: UpstreamOutcome;
  status: number | null;
  /** The endpoint's id (`<provider>:<model>`); not on the wire. */
  endpoint: string;
  /** The attempt's wall time; not on the wire. */
  ms: number;
}

/** A failed attempt's details. */
export type AttemptFailure = UpstreamFailure;

/** What an attempt function returns: the mapped value on success, else the failure. */
export type AttemptResult<T> = { outcome: 'ok'; value: T; upstreamMs?: number } | AttemptFailure;

/** Timing and breaker for one run. */
export interface FallbackOptions {
  attemptTimeoutMs: number;
  deadlineMs: number;
  /** The calling organization's circuits (`CircuitBreaker.forOrg`). */
  breaker: Circuits;
  /** Called after each attempt (metrics); `ms` is the attempt's wall time. */
  onAttempt?: (endpoint: Endpoint, outcome: UpstreamOutcome, ms: number) => void;
}

/** How the run ended. */
export type FallbackResult<T> =
  | { ok: true; value: T; endpoint: Endpoint; attempts: AttemptRecord[]; upstreamMs: number }
  | {
      ok: false;
      attempts: AttemptRecord[];
      last: AttemptFailure | null;
      lastEndpoint: Endpoint | null;
      skippedOpen: number;
      upstreamMs: number;
    };

/** Outcomes that say the endpoint is unhealthy (count towards opening its circuit). */
const UNHEALTHY: ReadonlySet<UpstreamOutcome> = new Set(['timeout', 'overloaded', 'server', 'network']);

/**
 * Try `candidates` in order with `attempt` until one succeeds, the request is shown to be bad,
 * or the candidates or the deadline run out. Each attempt is told why the run fell back to it:
 * the previous attempt's outcome, `circuit_open` when only open circuits were skipped, or null
 * for the first.
 */
export async function runWithFallback<T>(
  candidates: readonly Endpoint[],
  attempt: (endpoint: Endpoint, timeoutMs: number, fallbackReason: string | null) => Promise<AttemptResult<T>>,
  opts: FallbackOptions,
): Promise<FallbackResult<T>> {
  const started = performance.now();
  const attempts: AttemptRecord[] = [];
  let last: AttemptFailure | null = null;
  let lastEndpoint: Endpoint | null = null;
  let skippedOpen = 0;
  let upstreamMs = 0;
  for (const endpoint of candidates) {
    const remaining = opts.deadlineMs - (performance.now() - started);
    if (remaining <= 0) break;
    const permit = opts.breaker.acquireNow(endpoint) ?? (await opts.breaker.acquire(endpoint));
    if (permit.state === CircuitState.Open) {
      skippedOpen++;
      continue;
    }
    const t0 = performance.now();
    const fallbackReason = last ? last.outcome : skippedOpen > 0 ? 'circuit_open' : null;
    const result = await attempt(
      endpoint,
      Math.min(endpoint.provider.timeoutMs ?? opts.attemptTimeoutMs, remaining),
      fallbackReason,
    );
    const ms = performance.now() - t0;
    // The upstream's share: until its body arrived when known (parsing it is gateway work).
    upstreamMs += result.outcome === 'ok' && result.upstreamMs !== undefined ? result.upstreamMs : ms;
    opts.onAttempt?.(endpoint, result.outcome, ms);
    attempts.push({
      provider: endpoint.provider.slug,
      outcome: result.outcome,
      status: result.outcome === 'ok' ? 200 : result.status,
      endpoint: endpoint.id,
      ms,
    });
    // A half-open probe is always reported, or its slot would stay taken for another cooldown:
    // an answer about the request itself (client) shows the endpoint alive; a 429 does not.
    const probe = permit.state === CircuitState.HalfOpen;
    const healthy = result.outcome === 'ok' || (probe && result.outcome === 'client');
    if (healthy || probe || UNHEALTHY.has(result.outcome)) {
      const reporting = opts.breaker.report(endpoint, permit, healthy);
      if (reporting) await reporting;
    }
    if (result.outcome === 'ok') return { ok: true, value: result.value, endpoint, attempts, upstreamMs };
    last = result;
    lastEndpoint = endpoint;
    if (result.outcome === 'client') break;
  }
  return { ok: false, attempts, last, lastEndpoint, skippedOpen, upstreamMs };
}
