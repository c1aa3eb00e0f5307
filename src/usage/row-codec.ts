/**
 * Usage events as rows of Postgres's COPY text format: what the Redis Stream outbox puts in its
 * entries and streams into `generations` with `COPY … FROM STDIN`. One line per event, the
 * {@link USAGE_COLUMNS} in order, tab-separated, `\N` for NULL, and backslash, tab, newline and
 * carriage return escaped. Rows of several events join by plain concatenation, so batches are
 * spliced from entries without decoding them.
 *
 * Why not the JSON the entries held before: Postgres turns a JSON array into rows
 * (`json_to_recordset`) at about twice the CPU per row of a COPY (about 25–35 µs against 10–17 µs
 * per row on the benchmark's machine, measured with the backend's own CPU time), and at the
 * benchmark's rate that difference was a tenth of a core taken from the gateway's machine.
 * @module
 */
import { USAGE_COLUMNS } from './columns';
import type { UsageEvent } from './types';

const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
/** What COPY reads after a backslash (the rest stand for themselves). */
const UNESCAPED: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v' };
const NULL = '\\N';

function escapeChar(c: string): string {
  return ESCAPED[c] as string;
}

/** A text column's field. */
function text(s: string | null): string {
  if (s === null) return NULL;
  return SPECIAL.test(s) ? s.replace(SPECIALS, escapeChar) : s;
}

/** A number column's field (NULL for NaN and ±Infinity, as the JSON encoding has it). */
function num(n: number | null): string {
  return n !== null && Number.isFinite(n) ? String(n) : NULL;
}

/**
 * One event as one COPY row, newline included. Written out column by column (like the JSON
 * encoder it replaces on the hot path, and as cheap); the codec test checks the order against
 * {@link USAGE_COLUMNS} and that {@link decodeUsageRows} gives the event back exactly.
 */
export function encodeUsageRow(e: UsageEvent): string {
  const at = e.createdAt.getTime();
  return (
    `${text(e.id)}\t${Number.isNaN(at) ? NULL : e.createdAt.toISOString()}\t${text(e.orgId)}\t${text(e.workspaceId)}\t` +
    `${text(e.keyHash)}\t${text(e.endUser)}\t${text(e.sessionId)}\t${text(e.apiType)}\t${text(e.model)}\t` +
    `${text(e.provider)}\t${text(e.upstreamId)}\t${num(e.tokensPrompt)}\t${num(e.tokensCompletion)}\t${num(e.costUsd)}\t` +
    `${num(e.latencyMs)}\t${num(e.generationTimeMs)}\t${num(e.attempts)}\t${text(e.status)}\t${text(e.inputModality)}\t` +
    `${text(e.userAgent)}\t${text(e.httpReferer)}\t${text(e.appTitle)}\t${text(e.origin)}\t${text(e.finishReason)}\t` +
    `${text(e.variant)}\t${text(e.outputModality)}\t${num(e.toolCalls)}\t${e.isByok ? 'true' : 'false'}\t${num(e.upstreamCostUsd)}\t` +
    `${num(e.cachedTokens)}\n`
  );
}

function unescapeField(field: string): string | null {
  if (field === NULL) return null;
  return field.includes('\\') ? field.replace(/\\(.)/gs, (_, c: string) => UNESCAPED[c] ?? c) : field;
}

/** One row's event, or null when the line is not one (wrong column count, no id, org or valid date). */
function decodeRow(line: string): UsageEvent | null {
  const fields = line.split('\t');
  if (fields.length !== USAGE_COLUMNS.length) return null;
  const event: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) {
    const [, name, type] = USAGE_COLUMNS[i] as (typeof USAGE_COLUMNS)[number];
    const value = unescapeField(fields[i] as string);
    event[name] =
      value === null || type === 'text' || type === 'uuid'
        ? value
        : type === 'timestamptz'
          ? new Date(value)
          : type === 'bool'
            ? value === 'true' || value === 't'
            : Number(value);
  }
  const at = event.createdAt;
  if (typeof event.id !== 'string' || typeof event.orgId !== 'string' || !(at instanceof Date) || Number.isNaN(at.getTime())) return null;
  return event as unknown as UsageEvent;
}

/**
 * The events of rows written by {@link encodeUsageRow} (several rows concatenated), and the lines
 * that are not events (`foreign`), so a corrupt or foreign entry is set aside rather than
 * blocking the queue forever.
 */
export function decodeUsageRows(rows: string): { events: UsageEvent[]; foreign: string[] } {
  const events: UsageEvent[] = [];
  const foreign: string[] = [];
  const lines = rows.split('\n');
  // Every row ends with a newline: what follows the last one is empty, else a cut-off row.
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) foreign.push(rows);
  for (const line of lines) {
    const event = decodeRow(line);
    if (event) events.push(event);
    else foreign.push(line);
  }
  return { events, foreign };
}
