/**
 * The usage stream's entry format. An entry holds the events of one XADD: field `e` is their
 * JSON joined by commas (the inside of a JSON array), field `n` how many; an entry of one event
 * without `n` is the format before events shared entries. Batches for the insert are entries
 * spliced into one array, never decoded and encoded again.
 * @module
 */

/** One stream entry: its id, the `e` field (null when the entry was deleted meanwhile), and its event count (`n`). */
export interface Entry {
  id: string;
  raw: string | null;
  count: number;
}

/** Parse XREADGROUP/XAUTOCLAIM entry lists: `[[id, [field, value, …] | null], …]`. */
export function toEntries(list: unknown): Entry[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    const [id, fields] = item as [string, string[] | null];
    let raw: string | null = null;
    let count = 1;
    for (let i = 0; Array.isArray(fields) && i + 1 < fields.length; i += 2) {
      if (fields[i] === 'e') raw = fields[i + 1] ?? null;
      else if (fields[i] === 'n') count = Math.max(1, Math.trunc(Number(fields[i + 1])) || 1);
    }
    return { id: String(id), raw, count };
  });
}

/**
 * An entry this replica added, held to insert itself. Its events' JSON is kept as UTF-8 bytes
 * (what the XADD sent) rather than a string: a 10–25 kB string on V8's heap that lives until the
 * insert is copied by every scavenge it survives and often promoted, and in A/B runs that raised
 * the peak RSS by several MB; bytes outside the heap are never copied.
 */
export interface OwnEntry {
  id: string;
  bytes: Buffer;
  count: number;
}

/** The longest run of `entries` from the start holding at most `max` events (at least one entry). */
export function firstBatch<T extends { count: number }>(entries: readonly T[], max: number): { batch: T[]; events: number } {
  let events = 0;
  let i = 0;
  while (i < entries.length && (i === 0 || events + (entries[i] as T).count <= max)) events += (entries[i++] as T).count;
  return { batch: entries.slice(0, i), events };
}

/** The entries' events as one JSON array (entries deleted meanwhile, `raw` null, left out). */
export function batchJson(entries: readonly Entry[]): string {
  const raws: string[] = [];
  for (const e of entries) if (e.raw !== null) raws.push(e.raw);
  return `[${raws.join(',')}]`;
}
