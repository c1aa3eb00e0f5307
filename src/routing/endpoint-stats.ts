/**
 * Recent health of each provider endpoint as one organization's traffic saw it: attempts, failed
 * attempts (timeouts, overloads, 5xx, network errors, upstream 429s; not the request's own 4xx),
 * upstream 429s apart, latency, and a latency histogram of the answered attempts, per minute; the
 * attempt counts also per hour, for the day-long uptime. Counted in process on the request path
 * (a map increment), added to the shared store every few seconds, so every replica's traffic is in
 * the figures the dashboard's Providers page and the model endpoint list read, at no per-request
 * round trip. Usage records cannot give this: only successes are recorded.
 * @module
 */
import type { Kv } from '../kv/kv';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { AttemptRecord } from './run-with-fallback';
import { STATS_ADD, STATS_READ } from './endpoint-stats-scripts';
import { LATENCY_BOUNDS_MS, latencyBucket } from './latency-histogram';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** How long a minute's counts are kept: the longest window read, plus slack. */
const RETAIN_MS = 2 * HOUR_MS;
/** How long an hour's counts are kept: a day, plus the hour being filled. */
const RETAIN_HOUR_MS = 26 * HOUR_MS;
/** The window {@link EndpointStats.read} reports. */
export const STATS_WINDOW_MINUTES = 60;
/** Hours summed for the day-long uptime (the current one included). */
const DAY_HOURS = 24;
/** Field kinds also counted per hour. */
const HOURLY_KINDS = new Set(['a', 'f', 'r']);

/** One endpoint's counts over the window. */
export interface EndpointWindow {
  attempts: number;
  failures: number;
  latencyMsSum: number;
}

/** Attempts over a window for uptime: all, failed, and (among the failed) upstream 429s. */
export interface AttemptCounts {
  attempts: number;
  failures: number;
  rateLimited: number;
}

/** What the model endpoint list reports for one endpoint: uptime windows and the answered attempts' latency buckets. */
export interface EndpointRecent {
  last5m: AttemptCounts;
  last30m: AttemptCounts;
  lastDay: AttemptCounts;
  /** Answered attempts per {@link latencyBucket} over the last 30 minutes. */
  latency30m: number[];
}

const keyOf = (orgId: string, minute: number) => `endpoint-stats:{${orgId}}:${minute}`;
const hourKeyOf = (orgId: string, hour: number) => `endpoint-stats:{${orgId}}:h${hour}`;
/** `<endpoint id>|<kind>` → its parts. */
function splitField(field: string): { id: string; kind: string } {
  const cut = field.lastIndexOf('|');
  return { id: field.slice(0, cut), kind: field.slice(cut + 1) };
}

/** Per-organization, per-minute attempt counts: recorded in process, flushed to the {@link Kv}. */
export class EndpointStats {
  /** `<org>\n<minute>` → field → increment, waiting for the next flush. */
  private pending = new Map<string, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;
  /** Whether the last flush failed: only the first failure of a run is logged (each is counted). */
  private failing = false;
  /**
   * The flush whose batch has left `pending` but may not be in the store yet. Readers wait for it,
   * or a read in that gap would count the batch nowhere (an error rate of "no attempts" for a few
   * milliseconds every flush).
   */
  private flushing: Promise<void> | null = null;

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
    if (!fields) this.pending.set(slot, (fields = new Map<string, number>()));
    for (const a of attempts) {
      const failed = a.outcome !== 'ok' && a.outcome !== 'client';
      add(fields, `${a.endpoint}|a`, 1);
      if (failed) add(fields, `${a.endpoint}|f`, 1);
      if (a.outcome === 'rate_limited') add(fields, `${a.endpoint}|r`, 1);
      if (a.outcome === 'ok') add(fields, `${a.endpoint}|l${latencyBucket(a.ms)}`, 1);
      add(fields, `${a.endpoint}|ms`, Math.round(a.ms));
    }
  }

  /** Add what is pending to the shared store; a failed write is counted (the first of a run logged) and its counts dropped. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    const batch = this.pending;
    if (batch.size === 0) return;
    this.pending = new Map();
    const writing = this.write(batch);
    this.flushing = writing;
    try {
      await writing;
    } finally {
      this.flushing = null;
    }
  }

  /** Write `batch` (never rejects: failures are counted and logged here). */
  private async write(batch: ReadonlyMap<string, Map<string, number>>): Promise<void> {
    const results = await Promise.allSettled(
      [...batch].map(([slot, fields]) => {
        const [orgId, minute] = slot.split('\n') as [string, string];
        const hourly = [...fields].filter(([field]) => HOURLY_KINDS.has(splitField(field).kind));
        const hour = Math.floor((Number(minute) * MINUTE_MS) / HOUR_MS);
        return Promise.all([
          this.kv.run(STATS_ADD, [keyOf(orgId, Number(minute))], [RETAIN_MS, ...[...fields].flat()]),
          this.kv.run(STATS_ADD, [hourKeyOf(orgId, hour)], [RETAIN_HOUR_MS, ...hourly.flat()]),
        ]);
      }),
    );
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed.length > 0) {
      this.deps.metrics.endpointStatsWriteFailures.inc(failed.length);
      if (!this.failing)
        this.deps.logger.warn('endpoint statistics not written (the Providers page will undercount)', {
          err: failed[0]?.reason as unknown,
        });
    }
    this.failing = failed.length > 0;
  }

  /**
   * `orgId`'s stored counts, this replica's unflushed ones added: one map per minute (index 0 =
   * this minute) over {@link STATS_WINDOW_MINUTES}, and one per hour over {@link DAY_HOURS}; one
   * store round trip.
   */
  private async readSlots(
    orgId: string,
  ): Promise<{ minutes: Array<Map<string, number>>; hours: Array<Map<string, number>> }> {
    const now = this.deps.clock();
    const minute = Math.floor(now / MINUTE_MS);
    const hour = Math.floor(now / HOUR_MS);
    const minutes = Array.from({ length: STATS_WINDOW_MINUTES }, (_, i) => minute - i);
    const hours = Array.from({ length: DAY_HOURS }, (_, i) => hour - i);
    // What is unflushed when the read is sent: a batch flushed after it is written after the read
    // (one connection, in order), so it is counted here and not in the reply.
    while (this.flushing) await this.flushing;
    const unflushed = [...this.pending];
    const maps = await this.kv.run(
      STATS_READ,
      [...minutes.map((m) => keyOf(orgId, m)), ...hours.map((h) => hourKeyOf(orgId, h))],
      [],
    );
    const byMinute = maps.slice(0, minutes.length);
    const byHour = maps.slice(minutes.length);
    for (const [slot, fields] of unflushed) {
      const [org, m] = slot.split('\n') as [string, string];
      if (org !== orgId) continue;
      const minuteMap = byMinute[minute - Number(m)];
      const hourMap = byHour[hour - Math.floor((Number(m) * MINUTE_MS) / HOUR_MS)];
      for (const [field, n] of fields) {
        if (minuteMap) add(minuteMap, field, n);
        if (hourMap && HOURLY_KINDS.has(splitField(field).kind)) add(hourMap, field, n);
      }
    }
    return { minutes: byMinute, hours: byHour };
  }

  /** Each endpoint's counts for `orgId` over the last {@link STATS_WINDOW_MINUTES} minutes (this replica's unflushed ones included). */
  async read(orgId: string): Promise<Map<string, EndpointWindow>> {
    const { minutes } = await this.readSlots(orgId);
    const out = new Map<string, EndpointWindow>();
    for (const [field, n] of sumMaps(minutes)) {
      const { id, kind } = splitField(field);
      const w = out.get(id) ?? { attempts: 0, failures: 0, latencyMsSum: 0 };
      if (kind === 'a') w.attempts += n;
      else if (kind === 'f') w.failures += n;
      else if (kind === 'ms') w.latencyMsSum += n;
      out.set(id, w);
    }
    return out;
  }

  /** Each endpoint's uptime counts over 5 minutes, 30 minutes and a day, and its latency buckets over 30 minutes, for `orgId`. */
  async recent(orgId: string): Promise<Map<string, EndpointRecent>> {
    const { minutes, hours } = await this.readSlots(orgId);
    const out = new Map<string, EndpointRecent>();
    const entry = (id: string): EndpointRecent => {
      let r = out.get(id);
      if (!r)
        out.set(
          id,
          (r = {
            last5m: noAttempts(),
            last30m: noAttempts(),
            lastDay: noAttempts(),
            latency30m: LATENCY_BOUNDS_MS.map(() => 0).concat(0),
          }),
        );
      return r;
    };
    const windows: Array<[Map<string, number>, 'last5m' | 'last30m' | 'lastDay']> = [
      [sumMaps(minutes.slice(0, 5)), 'last5m'],
      [sumMaps(minutes.slice(0, 30)), 'last30m'],
      [sumMaps(hours), 'lastDay'],
    ];
    for (const [sums, window] of windows) {
      for (const [field, n] of sums) {
        const { id, kind } = splitField(field);
        const counts = entry(id)[window];
        if (kind === 'a') counts.attempts += n;
        else if (kind === 'f') counts.failures += n;
        else if (kind === 'r') counts.rateLimited += n;
        else if (window === 'last30m' && kind.startsWith('l')) {
          const bucket = Number(kind.slice(1));
          const latency = entry(id).latency30m;
          if (bucket < latency.length) latency[bucket] = (latency[bucket] ?? 0) + n;
        }
      }
    }
    return out;
  }

  /** Stop the timer and write what is pending (shutdown). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

function noAttempts(): AttemptCounts {
  return { attempts: 0, failures: 0, rateLimited: 0 };
}

function sumMaps(maps: ReadonlyArray<Map<string, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of maps) for (const [field, n] of m) add(out, field, n);
  return out;
}

function add(map: Map<string, number>, field: string, n: number): void {
  map.set(field, (map.get(field) ?? 0) + n);
}
