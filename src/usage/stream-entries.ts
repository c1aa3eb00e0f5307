/**
 * The usage stream's entry format: an entry holds the events of one XADD as a JSON array
 * (`JSON.stringify(events)`, field `e`) and how many they are (field `n`). Reading one back
 * revives the dates and checks each member's shape, so a corrupt or foreign entry is set aside
 * instead of blocking the stream.
 * @module
 */
import type { UsageEvent } from './types';

/** One stream entry: its id, its JSON (null when the entry was deleted meanwhile) and its event count. */
export interface Entry {
  id: string;
  json: string | null;
  count: number;
}

/** Field names of an entry. */
export const EVENTS_FIELD = 'e';
export const COUNT_FIELD = 'n';

/**
 * Parse XREADGROUP/XAUTOCLAIM/XRANGE entry lists: `[[id, [field, value, …] | null], …]` (null:
 * deleted meanwhile). An entry without an events field is foreign: its fields become its text, a
 * JSON object that {@link decodeEntry} sets aside whole.
 */
export function toEntries(list: unknown): Entry[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    const [id, fields] = item as [string, string[] | null];
    if (!Array.isArray(fields)) return { id: String(id), json: null, count: 1 };
    const byName = new Map<string, string>();
    for (let i = 0; i + 1 < fields.length; i += 2) byName.set(String(fields[i]), String(fields[i + 1]));
    const json = byName.get(EVENTS_FIELD) ?? JSON.stringify(Object.fromEntries(byName));
    return { id: String(id), json, count: Math.max(1, Math.trunc(Number(byName.get(COUNT_FIELD))) || 1) };
  });
}

/** The longest run of `entries` from the start holding at most `max` events (at least one entry). */
export function firstBatch(entries: readonly Entry[], max: number): { batch: Entry[]; events: number } {
  let events = 0;
  let i = 0;
  while (i < entries.length && (i === 0 || events + (entries[i] as Entry).count <= max))
    events += (entries[i++] as Entry).count;
  return { batch: entries.slice(0, i), events };
}

/**
 * The events of entries this process encoded itself as one JSON array, spliced from their text
 * (each is a non-empty array) without parsing it again.
 */
export function spliceJson(entries: readonly Entry[]): string {
  const parts: string[] = [];
  for (const e of entries) if (e.json !== null) parts.push(e.json.slice(1, -1));
  return `[${parts.join(',')}]`;
}

/** A usage event as its JSON carries it: the date as an ISO string. */
type EncodedEvent = Omit<UsageEvent, 'createdAt'> & { createdAt: string };

/** Whether a parsed value has the members that mark an encoded event (the writer is this code, so they stand for the rest). */
function isEncodedEvent(value: unknown): value is EncodedEvent {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const p = value as Record<string, unknown>;
  return typeof p.id === 'string' && typeof p.createdAt === 'string' && typeof p.orgId === 'string';
}

/** An event parsed from JSON with its date revived, or null when the value is not one. */
function revive(value: unknown): UsageEvent | null {
  if (!isEncodedEvent(value)) return null;
  const createdAt = new Date(value.createdAt);
  if (Number.isNaN(createdAt.getTime())) return null;
  return { ...value, createdAt };
}

/**
 * An entry's events, and what in it is not an event (`foreign`): the whole text when it is not a
 * non-empty JSON array, else each member that is not an event. Nothing for an entry deleted meanwhile.
 */
export function decodeEntry(json: string | null): { events: UsageEvent[]; foreign: string[] } {
  if (json === null) return { events: [], foreign: [] };
  let list: unknown;
  try {
    list = JSON.parse(json);
  } catch {
    return { events: [], foreign: [json] };
  }
  if (!Array.isArray(list) || list.length === 0) return { events: [], foreign: [json] };
  const events: UsageEvent[] = [];
  const foreign: string[] = [];
  for (const member of list) {
    const event = revive(member);
    if (event) events.push(event);
    else foreign.push(JSON.stringify(member));
  }
  return { events, foreign };
}
