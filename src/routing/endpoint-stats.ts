/**
 * Recent health of each provider endpoint as one organization's traffic saw it: attempts, failed
 * attempts (timeouts, overloads, 5xx, network errors, upstream 429s; not the request's own 4xx) and
 * latency, per minute. Counted in process on the request path (a map increment), added to the
 * shared store every few seconds, so every replica's traffic is in the figures the dashboard's
 * Providers page reads, at no per-request round trip. Usage records cannot give this: only
 * successes are recorded.
 * @module
 */
import type { Kv } from '../kv/kv';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { AttemptRecord } from './run-with-fallback';
import { STATS_ADD, STATS_READ } from './endpoint-stats-scripts';

const MINUTE_MS = 60_000;
/** How long a minute's counts are kept: the longest window read, plus slack. */
const RETAIN_MS = 2 * 60 * MINUTE_MS;
/** The window {@link EndpointStats.read} reports. */
export const STATS_WINDOW_MINUTES = 60;

/** One endpoint's counts over the window. */
export interface EndpointWindow {
  attempts: number;
  failures: number;
  latencyMsSum: number;
}

const keyOf = (orgId: string, minute: number) => `endpoint-stats:{${orgId}}:${minute}`;

/** Per-organization, per-minute attempt counts: recorded in process, flushed to the {@link Kv}. */
export class EndpointStats {
  /** `<org>\n<minute>` → field → increment, waiting for the next flush. */
  private pending = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;
  /** Whether the last flush failed: only the first failure of a run is logged (each is counted). */
  private failing = false;

  constructor(
    private readonly kv: Kv,
    private readonly deps: { clock: () => number; logger: Logger; metrics: Metrics },
    flushMs = 5_000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  /** Count one request's attempts (each with its endpoint id and wall time) for `orgId`. */
  record(orgId: string, attempts: readonly AttemptRecord[]): void {
    const slot = `${orgId}\n${Math.floor(this.deps.clock() / MINUTE_MS)}`;
    let fields = this.pending.get(slot);
    if (!fields) this.pending.set(slot, (fields = new Map()));
    for (const a of attempts) {
      const failed = a.outcome !== 'ok' && a.outcome !== 'client';
      add(fields, `${a.endpoint}|a`, 1);
      if (failed) add(fields, `${a.endpoint}|f`, 1);
      add(fields, `${a.endpoint}|ms`, Math.round(a.ms));
    }
  }

  /** Add what is pending to the shared store; a failed write is counted (the first of a run logged) and its counts dropped. */
  async flush(): Promise<void> {
    const batch = this.pending;
    if (batch.size === 0) return;
    this.pending = new Map();
    const results = await Promise.allSettled(
      [...batch].map(([slot, fields]) => {
        const [orgId, minute] = slot.split('\n') as [string, string];
        return this.kv.run(STATS_ADD, [keyOf(orgId, Number(minute))], [RETAIN_MS, ...[...fields].flat()]);
      }),
    );
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed.length > 0) {
      this.deps.metrics.endpointStatsWriteFailures.inc(failed.length);
      if (!this.failing) this.deps.logger.warn('endpoint statistics not written (the Providers page will undercount)', { err: failed[0]?.reason });
    }
    this.failing = failed.length > 0;
  }

  /** Each endpoint's counts for `orgId` over the last {@link STATS_WINDOW_MINUTES} minutes (this replica's unflushed ones included). */
  async read(orgId: string): Promise<Map<string, EndpointWindow>> {
    const now = Math.floor(this.deps.clock() / MINUTE_MS);
    const minutes = Array.from({ length: STATS_WINDOW_MINUTES }, (_, i) => now - i);
    const sums = await this.kv.run(STATS_READ, minutes.map((m) => keyOf(orgId, m)), []);
    for (const m of minutes) for (const [field, n] of this.pending.get(`${orgId}\n${m}`) ?? []) add(sums, field, n);
    const out = new Map<string, EndpointWindow>();
    for (const [field, n] of sums) {
      const cut = field.lastIndexOf('|');
      const id = field.slice(0, cut);
      const w = out.get(id) ?? { attempts: 0, failures: 0, latencyMsSum: 0 };
      const kind = field.slice(cut + 1);
      if (kind === 'a') w.attempts += n;
      else if (kind === 'f') w.failures += n;
      else w.latencyMsSum += n;
      out.set(id, w);
    }
    return out;
  }

  /** Stop the timer and write what is pending (shutdown). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

function add(map: Map<string, number>, field: string, n: number): void {
  map.set(field, (map.get(field) ?? 0) + n);
}
