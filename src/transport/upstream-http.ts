/**
 * The one place that talks HTTP to upstreams: a shared keep-alive undici Agent, and a POST for a
 * whole answer or a stream through the one dispatch core (`dispatch.ts`). Nothing here throws for
 * an upstream problem; the fallback runner decides what a result means.
 * @module
 */
import { Agent } from 'undici';
import { dispatchPost, type StreamOpening, type Target } from './dispatch';
import type { OverloadSignal, UpstreamRequest, UpstreamResult } from './outcome';

/** URLs whose parse is kept (catalog endpoints; a bound in case URLs ever carry per-request parts). */
const MAX_TARGETS = 1024;

/** Options of the shared upstream connection pool. */
export interface UpstreamHttpOptions {
  connectionsPerOrigin: number;
  keepAliveTimeoutMs: number;
}

/** Owns the keep-alive connection pool to every upstream origin, for every operation. */
export class UpstreamHttp {
  private readonly agent: Agent;
  private readonly targets = new Map<string, Target>();

  constructor(opts: UpstreamHttpOptions) {
    this.agent = new Agent({
      connections: opts.connectionsPerOrigin,
      keepAliveTimeout: opts.keepAliveTimeoutMs,
      keepAliveMaxTimeout: Math.max(opts.keepAliveTimeoutMs, 60000),
      pipelining: 1,
    });
  }

  /**
   * POST `req` and classify the result once the whole body has arrived; resolves (never rejects)
   * within about `timeoutMs`.
   * @param adapter - decides provider-specific overload signals
   */
  post(req: UpstreamRequest, adapter: OverloadSignal, timeoutMs: number): Promise<UpstreamResult> {
    return dispatchPost(this.agent, this.target(req.url), req, adapter, timeoutMs, 'whole');
  }

  /**
   * POST `req` for a streamed answer: resolves once the upstream answers (within about
   * `timeoutMs`), with the flowing body on a 2xx, else the classified failure.
   */
  stream(req: UpstreamRequest, adapter: OverloadSignal, timeoutMs: number): Promise<StreamOpening> {
    return dispatchPost(this.agent, this.target(req.url), req, adapter, timeoutMs, 'stream');
  }

  /** Origin and path of an upstream URL, parsed once per URL (there is one per catalog endpoint). */
  private target(url: string): Target {
    let t = this.targets.get(url);
    if (!t) {
      const u = new URL(url);
      t = { origin: u.origin, path: u.pathname + u.search };
      if (this.targets.size < MAX_TARGETS) this.targets.set(url, t);
    }
    return t;
  }

  /** Close every pooled connection (shutdown, tests). */
  async close(): Promise<void> {
    await this.agent.close();
  }
}
