/** Types of profile-summary.js (summaries of V8 CPU and allocation profiles; see there). */

/** A V8 CPU profile as the inspector's `Profiler.stop` returns it (the fields read here). */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Self time by function and by file or package, as text. */
export function summariseCpu(profile: CpuProfile, n?: number): string;

/** The event loop's busy stretches of at least `minMs`, grouped by what each was mostly doing, as text. */
export function longTasks(profile: CpuProfile, minMs?: number, n?: number): string;

/** Each file's or package's self time per request (µs) for several targets side by side, as text. */
export function compareUnits(
  columns: Array<{ name: string; profile: CpuProfile; requests: number }>,
  n?: number,
): string;

/** Inclusive time of the gateway's own functions (under `dist/src/`), as shares of the busy time, as text. */
export function inclusiveOwn(profile: CpuProfile, n?: number): string;
