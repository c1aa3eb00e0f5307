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

/** Each column's event field and Postgres type, in {@link COLUMNS} order. */
const FIELDS: ReadonlyArray<[keyof UsageEvent, string]> = [
  ['id', 'text'], ['createdAt', 'timestamptz'], ['orgId', 'uuid'], ['workspaceId', 'uuid'], ['keyHash', 'text'],
  ['endUser', 'text'], ['sessionId', 'text'], ['apiType', 'text'], ['model', 'text'], ['provider', 'text'],
  ['upstreamId', 'text'], ['tokensPrompt', 'int4'], ['tokensCompletion', 'int4'], ['costUsd', 'float8'],
  ['latencyMs', 'int4'], ['generationTimeMs', 'int4'], ['attempts', 'int4'], ['status', 'text'],
  ['inputModality', 'text'], ['userAgent', 'text'], ['httpReferer', 'text'], ['appTitle', 'text'],
];

/**
 * One statement for any batch size, with one parameter: the events as a JSON array, turned back
 * into rows by Postgres (`json_to_recordset`; dates travel as ISO strings, numbers exactly). A
 * VALUES list needs 22 placeholders per event (4,400 for a batch of 200): a new statement text
 * per batch size for Postgres to parse, and thousands of parameters for the gateway to encode
 * on its event loop between requests (about 3 ms per batch of 200; one `JSON.stringify` is a
 * fraction of that).
 */
const INSERT =
  `INSERT INTO generations (${COLUMNS.join(',')}) ` +
  `SELECT ${FIELDS.map(([f]) => `"${f}"`).join(',')} FROM json_to_recordset($1::json) ` +
  `AS e(${FIELDS.map(([f, t]) => `"${f}" ${t}`).join(',')}) ON CONFLICT (id) DO NOTHING`;

/** Insert a batch of events in one statement; already-present ids are skipped (idempotent). */
export async function insertUsageEvents(q: Queryable, events: UsageEvent[]): Promise<void> {
  if (events.length === 0) return;
  await q.query(INSERT, [JSON.stringify(events)]);
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
