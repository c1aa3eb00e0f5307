/**
 * The outbox's building blocks: the bounded queue's backpressure (full → push waits, a write
 * frees room, order kept), the retry backoff (grows, capped, reset by a success) and the stream
 * entry format (JSON arrays of events; what is not an event is handed back to be set aside).
 */
import { BoundedQueue } from '../../src/usage/bounded-queue';
import { Backoff } from '../../src/usage/backoff';
import { decodeEntry, firstBatch, spliceJson, toEntries, type Entry } from '../../src/usage/stream-entries';
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

describe('usage stream entries', () => {
  const event = SAMPLE_USAGE_EVENT;
  const second: UsageEvent = {
    ...event,
    id: 'gen-emb-2-def',
    endUser: 'a, "b"], [c',
    createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
  };

  test('an entry is JSON.stringify of its events; decoding revives the dates', () => {
    expect(decodeEntry(JSON.stringify([event, second]))).toEqual({ events: [event, second], foreign: [] });
    expect(decodeEntry(JSON.stringify([second])).events[0]!.createdAt).toBeInstanceOf(Date);
  });

  test('what is not an event is handed back as foreign: the whole entry if it is not a non-empty list, else each member', () => {
    for (const raw of [
      'not json',
      '',
      '[]',
      '{"id":"x"}',
      JSON.stringify(event),
      '[1,2',
      `${JSON.stringify([event])},`,
    ]) {
      expect(decodeEntry(raw)).toEqual({ events: [], foreign: [raw] });
    }
    const mixed = JSON.stringify([event, { hello: 1 }, 7, { ...event, createdAt: 'yesterday' }, { ...event, id: 1 }]);
    const decoded = decodeEntry(mixed);
    expect(decoded.events).toEqual([event]);
    expect(decoded.foreign).toEqual([
      '{"hello":1}',
      '7',
      JSON.stringify({ ...event, createdAt: 'yesterday' }),
      JSON.stringify({ ...event, id: 1 }),
    ]);
    expect(decodeEntry(null)).toEqual({ events: [], foreign: [] });
  });

  test('entries read from Redis: deleted ones have no JSON; one without an events field is its fields as an object', () => {
    const entries = toEntries([
      ['1-0', ['e', '[1]', 'n', '3']],
      ['2-0', null],
      ['3-0', ['r', 'rows', 'n', 'x']],
    ]);
    expect(entries).toEqual([
      { id: '1-0', json: '[1]', count: 3 },
      { id: '2-0', json: null, count: 1 },
      { id: '3-0', json: '{"r":"rows","n":"x"}', count: 1 },
    ]);
    expect(toEntries(null)).toEqual([]);
  });

  test('entries this process encoded splice into one array; a batch takes whole entries up to the limit', () => {
    const entries: Entry[] = [
      { id: '1', json: JSON.stringify([event]), count: 1 },
      { id: '2', json: JSON.stringify([second, event]), count: 2 },
      { id: '3', json: JSON.stringify([second]), count: 1 },
    ];
    expect(decodeEntry(spliceJson(entries)).events).toEqual([event, second, event, second]);
    expect(firstBatch(entries, 3)).toEqual({ batch: entries.slice(0, 2), events: 3 });
    expect(firstBatch(entries, 2)).toEqual({ batch: entries.slice(0, 1), events: 1 });
    // One entry over the limit still goes alone rather than never.
    expect(firstBatch(entries.slice(1), 1)).toEqual({ batch: entries.slice(1, 2), events: 2 });
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
