/**
 * Usage events on the wire of the Redis Stream outbox: one JSON field per entry. Dates travel
 * as ISO strings and are revived on the way out, so what lands in Postgres is what was recorded.
 * @module
 */
import type { UsageEvent } from './types';

/** Serialise an event for a stream entry. */
export function encodeUsageEvent(event: UsageEvent): string {
  return JSON.stringify(event);
}

/**
 * Parse a stream entry back into an event; null when it is not one (a corrupt or foreign entry
 * is acknowledged and logged rather than blocking the queue forever).
 */
export function decodeUsageEvent(raw: string): UsageEvent | null {
  try {
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    if (typeof parsed.id !== 'string' || typeof parsed.createdAt !== 'string' || typeof parsed.orgId !== 'string') return null;
    const createdAt = new Date(parsed.createdAt);
    if (Number.isNaN(createdAt.getTime())) return null;
    return { ...(parsed as unknown as UsageEvent), createdAt };
  } catch {
    return null;
  }
}
