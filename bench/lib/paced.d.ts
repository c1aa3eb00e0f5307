/** Types of paced.js (the benchmarks' evenly paced load from a client process of its own; see there). */

/** One paced run's figures (times in ms). */
export interface PacedResult {
  requests: number;
  rps: number;
  /** How long the run took, first request sent to last answer (s). */
  seconds: number;
  /** Whole answers. */
  p50: number | null;
  p99: number | null;
  /** Time to first byte: the first SSE `data:` event with `firstByte: 'event'`, else the status line. */
  ttfbP50: number | null;
  ttfbP99: number | null;
  errors: number;
  non2xx: number;
  /** 2xx answers without a `data:` event (timed to their end) when `firstByte` is `'event'`. */
  noEvent: number;
  /** The fewest and most `data:` events one 2xx answer had (null without answers, or unless `firstByte` is `'event'`). */
  eventsMin: number | null;
  eventsMax: number | null;
  /** Times the client's own 1 ms timer ran more than 2 ms late. */
  clientStalls: number;
  /** Every 2xx latency and time to first byte, ascending (only with `keepLatencies`). */
  latencies?: number[];
  ttfb?: number[];
}

/** `rate` requests per second for `duration` seconds to `url`, on a schedule; one run at a time. */
export function runPaced(opts: {
  url: string;
  headers?: Record<string, string>;
  body: string;
  rate: number;
  duration: number;
  maxSockets?: number;
  firstByte?: 'byte' | 'event';
  keepLatencies?: boolean;
  /** How long after the last request is due unanswered requests count as errors (default 10,000 ms). */
  answerTimeoutMs?: number;
}): Promise<PacedResult>;

/** End the client process. */
export function stopPaced(): Promise<void>;
