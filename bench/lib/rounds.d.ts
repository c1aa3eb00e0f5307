/** Types of rounds.js (the benchmarks' interleaved turns; see there). */

/** What a target needs to take turns: where to send load, and the process whose CPU is counted. */
export interface RoundTarget {
  url: string;
  headers: Record<string, string>;
  body: string;
  handle: { child: { pid: number }; metricsUrl?: string };
}

/** One target's figures over a round's turns (times in ms). */
export interface RoundFigures {
  requests: number;
  rps: number;
  p50: number | null;
  p99: number | null;
  errors: number;
  non2xx: number;
  cpuMsPerRequest: number | null;
  /** The user part of {@link cpuMsPerRequest}. */
  userMsPerRequest: number | null;
  /** The target's main thread's part of {@link cpuMsPerRequest} (user + system). */
  mainThreadMsPerRequest: number | null;
}

/** CPU seconds a target spent over a load (null where there is no /proc). */
export interface CpuSpent {
  seconds: number | null;
  userSeconds?: number | null;
  mainThreadSeconds?: number | null;
}

export function median(values: unknown[]): number | null;
export function msPerRequest(seconds: number | null, requests: number): number | null;
export function cpuDuring<T>(
  handle: { child: { pid: number } },
  load: () => Promise<T>,
): Promise<{ result: T } & Required<CpuSpent>>;
export function settle(metricsUrl: string, opts?: { timeoutMs?: number; pauseMs?: number }): Promise<void>;
export function inTurns<T>(targets: readonly T[], slices: number, run: (target: T) => Promise<void>): Promise<void>;
export function pooledTurns<
  T,
  R extends { requests: number; seconds: number; errors: number; non2xx: number; latencies: number[] },
>(
  targets: readonly T[],
  slices: number,
  run: (target: T) => Promise<{ result: R } & CpuSpent>,
): Promise<Map<T, { figures: RoundFigures; turns: R[] }>>;
export function maxRound<T extends RoundTarget>(
  targets: readonly T[],
  opts: { connections: number; duration: number; slices: number },
): Promise<Map<T, RoundFigures>>;
export function cpuLine(
  rows: ReadonlyArray<
    { name: string } & Partial<Pick<RoundFigures, 'cpuMsPerRequest' | 'userMsPerRequest' | 'mainThreadMsPerRequest'>>
  >,
): string;
