/**
 * The simplest correct recorder: one idempotent INSERT per event. The outbox recorder replaces
 * it on the hot path; this one remains for the CLI and as the outbox's final write step.
 * @module
 */
import type { Queryable } from '../store/db';
import type { UsageEvent, UsageRecorder } from './types';

/** Each column of `generations`, the event field it holds and its Postgres type. */
const COLUMNS: ReadonlyArray<[column: string, field: keyof UsageEvent, type: string]> = [
  ['id', 'id', 'text'], ['created_at', 'createdAt', 'timestamptz'], ['org_id', 'orgId', 'uuid'],
  ['workspace_id', 'workspaceId', 'uuid'], ['key_hash', 'keyHash', 'text'], ['end_user', 'endUser', 'text'],
  ['session_id', 'sessionId', 'text'], ['api_type', 'apiType', 'text'], ['model', 'model', 'text'],
  ['provider', 'provider', 'text'], ['upstream_id', 'upstreamId', 'text'], ['tokens_prompt', 'tokensPrompt', 'int4'],
  ['tokens_completion', 'tokensCompletion', 'int4'], ['cost_usd', 'costUsd', 'float8'], ['latency_ms', 'latencyMs', 'int4'],
  ['generation_time_ms', 'generationTimeMs', 'int4'], ['attempts', 'attempts', 'int4'], ['status', 'status', 'text'],
  ['input_modality', 'inputModality', 'text'], ['user_agent', 'userAgent', 'text'], ['http_referer', 'httpReferer', 'text'],
  ['app_title', 'appTitle', 'text'],
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
  `INSERT INTO generations (${COLUMNS.map(([column]) => column).join(',')}) ` +
  `SELECT ${COLUMNS.map(([, field]) => `"${field}"`).join(',')} FROM json_to_recordset($1::json) ` +
  `AS e(${COLUMNS.map(([, field, type]) => `"${field}" ${type}`).join(',')}) ON CONFLICT (id) DO NOTHING`;

/** Insert a batch of events in one statement; already-present ids are skipped (idempotent). */
export async function insertUsageEvents(q: Queryable, events: UsageEvent[]): Promise<void> {
  if (events.length === 0) return;
  await insertUsageJson(q, JSON.stringify(events));
}

/**
 * Insert a batch given as the JSON text of an array of events (what `JSON.stringify(events)`
 * gives), for callers that hold the events already encoded: Postgres's column types check each
 * field, and a malformed batch is refused with a data exception (SQLSTATE class 22 or 23).
 */
export async function insertUsageJson(q: Queryable, json: string): Promise<void> {
  await q.query(INSERT, [json]);
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
