/**
 * The simplest correct recorder: one idempotent INSERT per event. The outbox recorder replaces
 * it on the hot path; this one remains for the CLI and as the outbox's final write step.
 * @module
 */
import type { Database, Queryable } from '../store/db';
import type { UsageEvent, UsageRecorder } from './types';
import { USAGE_COLUMNS as COLUMNS } from './columns';

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

const COLUMN_NAMES = COLUMNS.map(([column]) => column);

/**
 * Load rows made by `encodeUsageRow` (row-codec.ts) with one COPY: all or none, and not
 * idempotent: a batch holding an id already in the table is refused whole (SQLSTATE 23505), and
 * the caller falls back to {@link insertUsageEvents}.
 */
export async function copyUsageRows(db: Pick<Database, 'copyIn'>, rows: ReadonlyArray<Buffer | string>): Promise<void> {
  await db.copyIn('generations', COLUMN_NAMES, rows);
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
