/**
 * The usage stream's entry format. An entry holds the events of one XADD: field `r` is their COPY
 * rows (row-codec.ts, concatenated), field `n` how many. Entries written before held JSON instead,
 * field `e`: the events' JSON joined by commas (the inside of a JSON array), or a single event
 * without `n`; they are still read. Batches for the database are entries spliced together (rows
 * concatenated, JSON joined into one array), never decoded and encoded again.
 * @module
 */

import { decodeUsageEntry } from './event-codec';
import { decodeUsageRows } from './row-codec';
import type { UsageEvent } from './types';

/**
 * One stream entry: its id, its events (null when the entry was deleted meanwhile) in their
 * format, and its event count (`n`). Entries read from Redis hold strings. An entry this replica
 * added and holds to insert itself keeps the UTF-8 bytes its XADD sent: a 10–25 kB string on V8's
 * heap that lives until the insert is copied by every scavenge it survives and often promoted,
 * and in A/B runs that raised the peak RSS by several MB; bytes outside the heap are never copied.
 */
export interface Entry {
  id: string;
  raw: string | Buffer | null;
  format: 'rows' | 'json';
  count: number;
}

/** Parse XREADGROUP/XAUTOCLAIM entry lists: `[[id, [field, value, …] | null], …]`. */
export function toEntries(list: unknown): Entry[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    const [id, fields] = item as [string, string[] | null];
    let raw: string | null = null;
    let format: Entry['format'] = 'json';
    let count = 1;
    for (let i = 0; Array.isArray(fields) && i + 1 < fields.length; i += 2) {
      const field = fields[i];
      if (field === 'r' || field === 'e') {
        raw = fields[i + 1] ?? null;
        format = field === 'r' ? 'rows' : 'json';
      } else if (field === 'n') count = Math.max(1, Math.trunc(Number(fields[i + 1])) || 1);
    }
    return { id: String(id), raw, format, count };
  });
}

/** The longest run of `entries` from the start holding at most `max` events (at least one entry). */
export function firstBatch<T extends { count: number }>(entries: readonly T[], max: number): { batch: T[]; events: number } {
  let events = 0;
  let i = 0;
  while (i < entries.length && (i === 0 || events + (entries[i] as T).count <= max)) events += (entries[i++] as T).count;
  return { batch: entries.slice(0, i), events };
}

/** The entries' events as one JSON array (`json` entries; those deleted meanwhile, `raw` null, left out). */
export function batchJson(entries: readonly Entry[]): string {
  const raws: string[] = [];
  for (const e of entries) if (e.raw !== null) raws.push(e.raw.toString());
  return `[${raws.join(',')}]`;
}

/** How many events `entries` hold. */
export function eventCount(entries: readonly Entry[]): number {
  let n = 0;
  for (const e of entries) n += e.count;
  return n;
}

/**
 * COPY's end-of-data marker, a line `\.`: the rows after it in the same COPY would be dropped
 * silently. The row encoder escapes every backslash, so only an entry read from the stream (a
 * string; never one this replica encoded and holds as bytes) can be a foreign one holding it.
 */
const END_OF_DATA = /(?:^|\n)\\\./;

/**
 * The entries (those deleted meanwhile left out) by how they are written: `rows` in one COPY,
 * `json` (the earlier format) in one JSON insert, `suspect` (rows holding the end-of-data marker)
 * decoded and inserted as events.
 */
export function byWritePath(entries: readonly Entry[]): { rows: Entry[]; json: Entry[]; suspect: Entry[] } {
  const out = { rows: [] as Entry[], json: [] as Entry[], suspect: [] as Entry[] };
  for (const e of entries) {
    if (e.raw === null) continue;
    if (e.format === 'json') out.json.push(e);
    else if (typeof e.raw === 'string' && END_OF_DATA.test(e.raw)) out.suspect.push(e);
    else out.rows.push(e);
  }
  return out;
}

/** An entry's events, and what in it is not an event; nothing for an entry deleted meanwhile. */
export function decodeEntry(entry: Entry): { events: UsageEvent[]; foreign: string[] } {
  if (entry.raw === null) return { events: [], foreign: [] };
  const raw = entry.raw.toString();
  return entry.format === 'rows' ? decodeUsageRows(raw) : decodeUsageEntry(raw);
}
