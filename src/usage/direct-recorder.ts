/**
 * The simplest correct recorder: one idempotent INSERT per event. The outbox recorder replaces
 * it on the hot path; this one remains for the CLI and as the outbox's final write step.
 * @module
 */
import type { Queryable } from '../store/db';
import type { UsageEvent, UsageRecorder } from './types';

const COLUMNS = [
  'id', 'created_at', 'org_id', 'workspace_id', 'key_hash', 'end_user', 'session_id', 'api_type', 'model', 'provider',
  'upstream_id', 'tokens_prompt', 'tokens_completion', 'cost_usd', 'latency_ms', 'generation_time_ms', 'attempts',
  'status', 'input_modality', 'user_agent', 'http_referer', 'app_title',
] as const;

function values(e: UsageEvent): unknown[] {
  return [
    e.id, e.createdAt, e.orgId, e.workspaceId, e.keyHash, e.endUser, e.sessionId, e.apiType, e.model, e.provider,
    e.upstreamId, e.tokensPrompt, e.tokensCompletion, e.costUsd, e.latencyMs, e.generationTimeMs, e.attempts,
    e.status, e.inputModality, e.userAgent, e.httpReferer, e.appTitle,
  ];
}

/** Insert a batch of events in one statement; already-present ids are skipped (idempotent). */
export async function insertUsageEvents(q: Queryable, events: UsageEvent[]): Promise<void> {
  if (events.length === 0) return;
  const params: unknown[] = [];
  const rows = events.map((e) => {
    const start = params.length;
    params.push(...values(e));
    return `(${COLUMNS.map((_, i) => `$${start + i + 1}`).join(',')})`;
  });
  await q.query(`INSERT INTO generations (${COLUMNS.join(',')}) VALUES ${rows.join(',')} ON CONFLICT (id) DO NOTHING`, params);
}

/** Recorder that writes each event straight to the database. */
export class DirectUsageRecorder implements UsageRecorder {
  constructor(private readonly db: Queryable) {}
  record(event: UsageEvent): Promise<void> {
    return insertUsageEvents(this.db, [event]);
  }
  /** Nothing is ever pending: `record` resolves once the row is written. */
  async pending(): Promise<UsageEvent[]> {
    return [];
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}
