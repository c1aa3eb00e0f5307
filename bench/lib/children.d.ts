/** Types of the parts of children.js (the benchmark's child processes; see there) that TypeScript tests use. */

/** User and system CPU seconds of a live process, or of its thread `tid`; null without /proc. */
export function cpuTimes(pid: number, tid?: number): { user: number; system: number } | null;

/** User + system CPU seconds of a live process; null without /proc. */
export function cpuSeconds(pid: number): number | null;

/** Peak resident set size of a live process in MB; null without /proc. */
export function peakRssMb(pid: number): number | null;
