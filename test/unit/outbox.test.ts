/**
 * The outbox's building blocks: the bounded queue's backpressure (full → push waits, a write
 * frees room, order kept) and the retry backoff (grows, capped, reset by a success).
 */
import { BoundedQueue } from '../../src/usage/bounded-queue';
import { Backoff } from '../../src/usage/backoff';
import { decodeUsageEntry, encodeUsageEvent } from '../../src/usage/event-codec';
import { isDataError } from '../../src/usage/outbox';
import type { UsageEvent } from '../../src/usage/types';
import { SAMPLE_USAGE_EVENT } from '../helpers/usage-events';

describe('BoundedQueue', () => {
  test('push waits while full and resumes when items are removed, keeping FIFO order', async () => {
    const q = new BoundedQueue<number>(2);
    await q.push(1);
    await q.push(2);
    let third = false;
    const pending = q.push(3).then(() => {
      third = true;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    expect(q.waiting).toBe(1);
    expect(q.length).toBe(2);
    expect(q.peek(5)).toEqual([1, 2]);
    q.remove(1);
    await pending;
    expect(third).toBe(true);
    expect(q.peek(5)).toEqual([2, 3]);
  });

  test('rejects a non-positive bound at construction', () => {
    expect(() => new BoundedQueue(0)).toThrow();
  });
});

describe('Backoff', () => {
  test('delays grow exponentially up to the cap and reset after a success', () => {
    let now = 1000;
    const b = new Backoff(100, 1000, () => now);
    expect(b.ready()).toBe(true);
    const d1 = b.fail();
    expect(d1).toBeGreaterThanOrEqual(50);
    expect(d1).toBeLessThanOrEqual(100);
    expect(b.ready()).toBe(false);
    expect(b.waitMs()).toBe(d1);
    const delays = [b.fail(), b.fail(), b.fail(), b.fail(), b.fail()];
    for (const d of delays) expect(d).toBeLessThanOrEqual(1000);
    expect(delays[4]).toBeGreaterThanOrEqual(500);
    now += 1000;
    expect(b.ready()).toBe(true);
    b.succeed();
    expect(b.fail()).toBeLessThanOrEqual(100);
  });
});

describe('usage event codec', () => {
  const event = SAMPLE_USAGE_EVENT;

  test('round-trips an event including its Date', () => {
    expect(decodeUsageEntry(encodeUsageEvent(event)).events).toEqual([event]);
  });

  test('encodes exactly as JSON.stringify: every member, in order, with escapes, nulls, non-finite numbers and bad dates', () => {
    const odd: UsageEvent = {
      ...event, endUser: 'quote " backslash \\ newline \n tab \t nul \u0000 é 😀 \ud800', sessionId: null, provider: null,
      userAgent: 'Mozilla/5.0 (X11) "x"', httpReferer: '</script>', appTitle: '', latencyMs: null, generationTimeMs: -0, costUsd: 1e-21,
    };
    for (const e of [event, odd, { ...event, costUsd: Number.NaN, tokensPrompt: Number.POSITIVE_INFINITY, createdAt: new Date(Number.NaN) }]) {
      expect(encodeUsageEvent(e)).toBe(JSON.stringify(e));
    }
    expect(Object.keys(JSON.parse(encodeUsageEvent(event)) as object)).toEqual(Object.keys(event));
  });

  test('refuses entries that are not events', () => {
    expect(decodeUsageEntry('not json').events).toEqual([]);
    expect(decodeUsageEntry('{"id":1}').events).toEqual([]);
    expect(decodeUsageEntry(JSON.stringify({ ...event, createdAt: 'yesterday' })).events).toEqual([]);
  });

  test('a stream entry holds the events of one XADD joined by commas; one event alone is an entry too', () => {
    const second = { ...event, id: 'gen-emb-2-def', endUser: 'a, "b"], [c' };
    expect(decodeUsageEntry([event, second].map(encodeUsageEvent).join(','))).toEqual({ events: [event, second], foreign: [] });
    expect(decodeUsageEntry(encodeUsageEvent(event))).toEqual({ events: [event], foreign: [] });
  });

  test('what is not an event is handed back as foreign: the whole entry if it is not a list, else each member', () => {
    for (const raw of ['not json', '', '1],[2', `${encodeUsageEvent(event)},`]) expect(decodeUsageEntry(raw)).toEqual({ events: [], foreign: [raw] });
    expect(decodeUsageEntry(`${encodeUsageEvent(event)},{"hello":1},7`)).toEqual({ events: [event], foreign: ['{"hello":1}', '7'] });
  });
});

describe('isDataError', () => {
  test('data exceptions and integrity violations are data errors; outages are not', () => {
    expect(isDataError({ code: '22P02' })).toBe(true);
    expect(isDataError({ code: '23502' })).toBe(true);
    expect(isDataError({ code: '08006' })).toBe(false);
    expect(isDataError({ code: '57P01' })).toBe(false);
    expect(isDataError(new Error('connect ECONNREFUSED'))).toBe(false);
    expect(isDataError(null)).toBe(false);
  });
});
