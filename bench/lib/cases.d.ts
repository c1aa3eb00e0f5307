/** Types of cases.js (the benchmarks' cases by BENCH_CASE; see there). */

export interface BenchCase {
  name: string;
  stream: boolean;
  /** Scripts in bench/: the fake upstream and the floor that serve the case. */
  upstream: string;
  floor: string;
  /** The API route under `/api/v1`. */
  route: string;
  /** Chat-like cases: the wire format of the route and the upstream, and the upstream's path (for direct and proxy). */
  format?: 'chat' | 'messages' | 'responses';
  upstreamPath?: string;
  /** The client's body to the gateway and the floor. */
  body: string;
  /** The request as the gateway sends it upstream (chat-like cases). */
  upstreamBody?: string;
  /** Laid over the bench gateway's configuration (startBenchGateway's `config`). */
  config: { server?: { bodyLimitBytes: number } };
  /** An agent turn's size in KB. */
  kb?: number;
}

export function benchCase(name?: string, allowed?: string[]): BenchCase;
export function caseLabel(c: BenchCase): string;
export function configFor(body: string): { server?: { bodyLimitBytes: number } };
