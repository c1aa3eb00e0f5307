/**
 * Sticky sessions, as the hosted service routes them: the requests of one session (`session_id`,
 * or the `x-session-id` header) to one model go first to the endpoint that last answered that
 * session, so its prompt cache stays warm and provider-scoped reasoning signatures stay valid.
 * The affinity lives in the shared Kv (every replica sees it), per workspace, and expires after
 * `chat.sessionAffinityTtlMs` without requests. It only reorders candidates, never adds or
 * removes one: an endpoint whose circuit is open is still skipped by the fallback runner, and the
 * endpoint that answers instead becomes the session's. A Kv fault costs the stickiness only.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { Kv } from '../kv/kv';
import type { Logger } from '../observability/logger';
import { AFFINITY_READ, AFFINITY_WRITE } from './session-affinity-scripts';

/** Whose session it is: one tenant's session id never steers another's. */
export interface AffinityScope {
  orgId: string;
  workspaceId: string;
}

/** One request's session: where its affinity is stored, and the endpoint it named when the request began. */
export interface SessionPin {
  readonly key: string;
  /** The model the affinity is for (the request's first model). */
  readonly modelId: string;
  /** The endpoint id (`<provider>:<model>`) that last answered the session; null for a new session. */
  readonly endpointId: string | null;
}

/** One per gateway (on the routing state), for every chat-like door. */
export class SessionAffinity {
  constructor(
    private readonly kv: Kv,
    /** 0 turns stickiness off. */
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * The session's pin, read from the Kv (one round trip, which also restarts its expiry); null
   * at once, with no Kv call, for a request without a session or with stickiness off; null
   * (logged) when the Kv cannot answer, so the request is routed as if it had no session.
   */
  lookup(
    scope: AffinityScope,
    sessionId: string | null | undefined,
    modelId: string,
  ): Promise<SessionPin | null> | null {
    if (!sessionId || this.ttlMs === 0) return null;
    const key = `sa:${scope.orgId}:${scope.workspaceId}:${encodeURIComponent(modelId)}:${sessionId}`;
    return this.kv.run(AFFINITY_READ, [key], [this.ttlMs]).then(
      (endpointId): SessionPin => ({ key, modelId, endpointId }),
      (err: unknown) => {
        this.logger.warn('session affinity unavailable; routing without it', { err });
        return null;
      },
    );
  }

  /** `candidates` with the pinned endpoint first when it is among them (else unchanged). */
  static ordered(candidates: Endpoint[], pin: SessionPin | null): Endpoint[] {
    if (!pin?.endpointId) return candidates;
    const at = candidates.findIndex((e) => e.id === pin.endpointId);
    if (at <= 0) return candidates;
    return [candidates[at] as Endpoint, ...candidates.slice(0, at), ...candidates.slice(at + 1)];
  }

  /**
   * Point the session at `answered`, the endpoint that just answered it, when that is an endpoint
   * of the pinned model other than the one stored. Never rejects (a Kv fault is logged); undefined
   * when there is nothing to write. The caller does not wait for it before answering.
   */
  remember(pin: SessionPin, answered: Endpoint): Promise<void> | undefined {
    if (answered.modelId !== pin.modelId || answered.id === pin.endpointId) return undefined;
    return this.kv.run(AFFINITY_WRITE, [pin.key], [answered.id, this.ttlMs]).then(
      () => undefined,
      (err: unknown) => void this.logger.warn('session affinity not stored', { err }),
    );
  }
}
