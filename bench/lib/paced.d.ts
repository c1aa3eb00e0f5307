/** Types of paced.js (the benchmark's evenly paced load from a client process of its own; see there). */

/** One paced run's figures (latencies in ms). */
export interface PacedResult {
  requests: number;
  rps: number;
  /** How long the run took, first request sent to last answer (s). */
  seconds: number;
  p50: number | null;
  p99: number | null;
  errors: number;
  non2xx: number;
  /** Times the client's own 1 ms timer ran more than 2 ms late. */
  clientStalls: number;
  /** Every 2xx latency, ascending (only with `keepLatencies`). */
  latencies?: number[];
}

/** `rate` requests per second for `duration` seconds to `url`, on a schedule; one run at a time. */
export function runPaced(opts: {
  url: string;
  headers?: Record<string, string>;
  body: string;
  rate: number;
  duration: number;
  maxSockets?: number;
  keepLatencies?: boolean;
}): Promise<PacedResult>;

/** End the client process. */
export function stopPaced(): Promise<void>;
