/**
 * The one write of usage events into `generations`: a batch in one multi-row INSERT, idempotent
 * on the generation id. The outboxes write through it; tests use it to put rows in place.
 * @module
 */
import type { Queryable } from '../store/db';
import type { UsageEvent } from './types';
import { USAGE_COLUMNS as COLUMNS } from './columns';

/**
 * One statement for any batch size, with one parameter: the events as a JSON array, turned back
 * into rows by Postgres (`json_to_recordset`; dates travel as ISO strings, numbers exactly). A
 * VALUES list would need a placeholder per column per event: a new statement text for every
 * batch size, and thousands of parameters to encode on the event loop.
 */
const INSERT =
  `INSERT INTO generations (${COLUMNS.map(([column]) => column).join(',')}) ` +
  `SELECT ${COLUMNS.map(([, field, , absent]) => (absent === undefined ? `"${field}"` : `coalesce("${field}", ${absent})`)).join(',')} FROM json_to_recordset($1::json) ` +
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
