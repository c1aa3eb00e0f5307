/**
 * Usage events on the wire of the Redis Stream outbox: one JSON field per entry. Dates travel
 * as ISO strings and are revived on the way out, so what lands in Postgres is what was recorded.
 * @module
 */
import type { UsageEvent } from './types';

/** A string member's JSON value. */
function str(s: string | null): string {
  return s === null ? 'null' : JSON.stringify(s);
}

/** A number member's JSON value (`null` for NaN and ±Infinity, as `JSON.stringify` has it). */
function num(n: number | null): string {
  return n !== null && Number.isFinite(n) ? String(n) : 'null';
}

/**
 * Serialise an event for a stream entry: exactly `JSON.stringify(event)`, written out member by
 * member. Every answered request encodes one, and `JSON.stringify` over an object holding a
 * `Date` takes its generic path through `toJSON` (about 1.9 µs an event, 2.4 % of the gateway's
 * CPU at 32 connections, against 1.2 µs here). The codec test checks that both agree member for
 * member, so a field added to {@link UsageEvent} but not here fails it.
 */
export function encodeUsageEvent(e: UsageEvent): string {
  const at = e.createdAt.getTime();
  return (
    `{"id":${str(e.id)},"createdAt":${Number.isNaN(at) ? 'null' : `"${e.createdAt.toISOString()}"`},"orgId":${str(e.orgId)},` +
    `"workspaceId":${str(e.workspaceId)},"keyHash":${str(e.keyHash)},"endUser":${str(e.endUser)},"sessionId":${str(e.sessionId)},` +
    `"apiType":${str(e.apiType)},"model":${str(e.model)},"provider":${str(e.provider)},"upstreamId":${str(e.upstreamId)},` +
    `"tokensPrompt":${num(e.tokensPrompt)},"tokensCompletion":${num(e.tokensCompletion)},"costUsd":${num(e.costUsd)},` +
    `"latencyMs":${num(e.latencyMs)},"generationTimeMs":${num(e.generationTimeMs)},"attempts":${num(e.attempts)},` +
    `"status":${str(e.status)},"inputModality":${str(e.inputModality)},"userAgent":${str(e.userAgent)},` +
    `"httpReferer":${str(e.httpReferer)},"appTitle":${str(e.appTitle)},"origin":${str(e.origin)},` +
    `"finishReason":${str(e.finishReason)},"variant":${str(e.variant)},"outputModality":${str(e.outputModality)},` +
    `"toolCalls":${num(e.toolCalls)},"isByok":${e.isByok ? 'true' : 'false'},"upstreamCostUsd":${num(e.upstreamCostUsd)},` +
    `"cachedTokens":${num(e.cachedTokens)}}`
  );
}

/**
 * An event parsed from JSON, or null when the value is not one (a corrupt or foreign entry is set
 * aside and logged rather than blocking the queue forever).
 */
function revive(parsed: unknown): UsageEvent | null {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const p = parsed as Record<string, unknown>;
  if (typeof p.id !== 'string' || typeof p.createdAt !== 'string' || typeof p.orgId !== 'string') return null;
  const createdAt = new Date(p.createdAt);
  if (Number.isNaN(createdAt.getTime())) return null;
  return { ...(p as unknown as UsageEvent), createdAt };
}

/**
 * A stream entry's events. An entry holds the events of one XADD as their encodings joined by
 * commas (the inside of a JSON array, so batches are spliced together without decoding); an
 * entry of one event is the old one-event format. `foreign` are the parts that are not events:
 * the whole entry when it is not such a list, else each member that is not an event (re-encoded).
 */
export function decodeUsageEntry(raw: string): { events: UsageEvent[]; foreign: string[] } {
  let list: unknown;
  try {
    list = JSON.parse(`[${raw}]`);
  } catch {
    return { events: [], foreign: [raw] };
  }
  if ((list as unknown[]).length === 0) return { events: [], foreign: [raw] };
  const events: UsageEvent[] = [];
  const foreign: string[] = [];
  for (const member of list as unknown[]) {
    const event = revive(member);
    if (event) events.push(event);
    else foreign.push(JSON.stringify(member));
  }
  return { events, foreign };
}
