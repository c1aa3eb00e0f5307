/**
 * The embedded twin stays bounded: keys named by period (a day's budget counter and holds, a
 * rate-limit window) are never read again once their period is over, so the twin sweeps expired
 * entries on a timer. A simulated week (injected clock, jest fake timers) of a busy replica's key
 * pattern leaves only the live periods' keys.
 */
import { MemoryKv } from '../../src/kv/memory';
import { MemoryData } from '../../src/kv/memory-data';
import type { KvScript } from '../../src/kv/kv';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const START = Date.UTC(2026, 10, 20); // 2026-11-20T00:00Z

/** A hit in a fixed rate-limit window: INCR, and PEXPIRE for a new window (as the limiter's script does). */
const hit: KvScript<number> = {
  name: 'test_hit',
  lua: '',
  memory(data, keys, args) {
    const n = data.incrBy(keys[0]!, 1);
    if (n === 1) data.pexpire(keys[0]!, Number(args[0]));
    return n;
  },
  parse: Number,
};

/** Spend on a period counter (SET with PX when new, then INCRBY) and a hold in its holds hash (HSET, PEXPIRE), as the budget scripts do. */
const spend: KvScript<number> = {
  name: 'test_spend',
  lua: '',
  memory(data, keys, args) {
    const [spent, holds] = keys as [string, string];
    const ttl = Number(args[0]);
    if (data.get(spent) === null) data.set(spent, '0', ttl);
    data.hset(holds, String(args[1]), '1');
    if (data.pttl(holds) < ttl) data.pexpire(holds, ttl);
    return data.incrBy(spent, 5);
  },
  parse: Number,
};

beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});

test('a week of period-keyed counters and rate-limit windows keeps the map small', async () => {
  let now = START;
  const kv = new MemoryKv('sy:', () => now);
  const workspaces = ['ws1', 'ws2', 'ws3'];
  const apiKeys = ['k1', 'k2', 'k3', 'k4'];
  let created = 0;
  let largest = 0;
  try {
    for (let minute = 0; minute < 7 * 24 * 60; minute++) {
      // Each key hits its one-minute window.
      for (const k of apiKeys) {
        await kv.run(hit, [`rl:api:${k}:${Math.floor(now / MINUTE)}`], [MINUTE]);
      }
      created += apiKeys.length;
      // Every ten minutes a request per workspace spends on today's counter, kept a day past its end.
      if (minute % 10 === 0) {
        const day = new Date(now).toISOString().slice(0, 10);
        const endOfDay = Math.floor(now / DAY) * DAY + DAY;
        for (const ws of workspaces) {
          await kv.run(
            spend,
            [`budget:{${ws}}:daily:${day}`, `budget:{${ws}}:daily:${day}:holds`],
            [endOfDay - now + DAY, `r${minute}`],
          );
        }
      }
      now += MINUTE;
      jest.advanceTimersByTime(MINUTE);
      largest = Math.max(largest, kv.data.size);
    }
    expect(created).toBeGreaterThan(28_000);
    // Live at any time: the rate-limit windows of the last sweep interval or two, and for each
    // workspace today's and yesterday's counter and holds.
    expect(largest).toBeLessThan(4 * 3 + 3 * 2 * 3);
    expect(kv.data.size).toBeLessThan(4 * 3 + 3 * 2 * 3);
  } finally {
    await kv.close();
  }
  // Closed: the sweep timer is gone.
  expect(jest.getTimerCount()).toBe(0);
});

test('sweep removes expired entries only, whatever their kind', () => {
  let now = 1000;
  const data = new MemoryData(() => now);
  data.set('short', 'v', 10);
  data.set('long', 'v', 1000);
  data.set('forever', 'v');
  data.hset('hash', 'f', 'v');
  data.pexpire('hash', 5);
  now += 10;
  expect(data.sweep()).toBe(2);
  expect(data.size).toBe(2);
  expect(data.get('long')).toBe('v');
  expect(data.get('forever')).toBe('v');
});
