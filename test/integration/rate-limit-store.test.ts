/**
 * The rate-limit store's contract, run against the in-process twin and real Redis alike: a
 * fixed window per key from its first hit, express-rate-limit's get/decrement/resetKey, and hit
 * leases — admitted in memory, counted in the shared counter when leased, never admitting past
 * the limit across two stores (replicas) on one Kv, never past their window, and returning what
 * they did not use only to the window they were taken in.
 */
import { KVS, uniqueId } from '../helpers/services';
import type { Kv, KvScript } from '../../src/kv/kv';
import { KvRateLimitStore, type KvRateLimitStoreOptions } from '../../src/ratelimit/store';
import { RELEASE } from '../../src/ratelimit/scripts';

const LEASE_MS = 30;

/** Replace a key's window by a new one holding `count` (as if the old one ended and another began). */
const newWindow: KvScript<number> = {
  name: 'test_new_window',
  lua: `redis.call('DEL', KEYS[1], KEYS[2]); redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]); return 1`,
  memory(data, [counter, leased], [count, ttl]) {
    data.del(leased as string);
    data.set(counter as string, String(count), Number(ttl));
    return 1;
  },
  parse: (reply) => Number(reply),
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `inner`, except that its next `failures.left` lease releases are refused (Redis unreachable). */
function refusingReleases(inner: Kv, failures: { left: number }): Kv {
  const kv = Object.create(inner) as Kv;
  kv.run = (script, keys, args) => (script === RELEASE && failures.left-- > 0 ? Promise.reject(new Error('Kv unreachable')) : inner.run(script, keys, args));
  return kv;
}

/** Timers keeping the process alive. */
const liveTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe.each(KVS)('rate-limit store: $name', (kind) => {
  let kv: Kv;
  const stores: KvRateLimitStore[] = [];
  /** A store on the test's Kv (or `on`, a wrapper of it). */
  const store = (o: Partial<KvRateLimitStoreOptions> & { hits?: number; ms?: number; on?: Kv } = {}) => {
    const { hits = 0, ms = LEASE_MS, on = kv, ...rest } = o;
    const s = new KvRateLimitStore(on, { prefix: 'rl:t:', windowMs: 60000, limit: 1000, lease: { hits, ms }, ...rest });
    stores.push(s);
    return s;
  };
  const counted = async (s: KvRateLimitStore, key: string) => (await s.get(key))?.totalHits;

  beforeEach(async () => {
    kv = await kind.open(`t:${uniqueId()}:`);
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.shutdown()));
    await kv.close();
  });

  test('counts per key within a window; get, decrement and resetKey', async () => {
    const s = store();
    expect((await s.increment('k1')).totalHits).toBe(1);
    const second = await s.increment('k1');
    expect(second.totalHits).toBe(2);
    expect(second.resetTime!.getTime() - Date.now()).toBeGreaterThan(55000);
    expect((await s.increment('k2')).totalHits).toBe(1);
    expect(await counted(s, 'k1')).toBe(2);
    await s.decrement('k1');
    expect(await counted(s, 'k1')).toBe(1);
    await s.resetKey('k1');
    expect(await s.get('k1')).toBeUndefined();
    expect((await s.increment('k1')).totalHits).toBe(1);
  });

  test('a window ends windowMs after its first hit', async () => {
    const s = store({ windowMs: 1000 });
    await s.increment('k');
    expect((await s.increment('k')).totalHits).toBe(2);
    await sleep(1100);
    expect((await s.increment('k')).totalHits).toBe(1);
  });

  test('a lease is counted when granted; its hits are admitted in memory; unused hits are returned when it closes', async () => {
    const s = store({ hits: 8 });
    expect((await s.increment('k')).totalHits).toBe(1);
    expect(await counted(s, 'k')).toBe(9); // the hit and the 8 leased
    const local = [];
    for (let i = 0; i < 3; i++) local.push((await s.increment('k')).totalHits);
    expect(local).toEqual([2, 3, 4]);
    expect(await counted(s, 'k')).toBe(9); // no Kv call for those
    await sleep(LEASE_MS + 50);
    expect(await counted(s, 'k')).toBe(4); // the 5 unused returned
  });

  test('hits arriving while a lease is asked for wait for it instead of each going to the Kv', async () => {
    const s = store({ hits: 8 });
    const burst = await Promise.all(Array.from({ length: 5 }, () => s.increment('k')));
    expect(burst.map((r) => r.totalHits).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5]);
    expect(await counted(s, 'k')).toBe(9); // one Kv hit and its lease; the other four on the lease (below the renewal mark)
  });

  test('steady traffic renews leases ahead: at most 2 of 64 hits go to the Kv themselves (one in 17 without renewal), and the count stays exact', async () => {
    const asks = { request: 0, renewal: 0 };
    const counting: Kv = Object.create(kv) as Kv;
    counting.run = (script, keys, args) => {
      if (script.name === 'rate_limit_hit') asks[args[4] === 1 ? 'renewal' : 'request'] += 1;
      return kv.run(script, keys, args);
    };
    const s = new KvRateLimitStore(counting, { prefix: 'rl:t:', windowMs: 60000, limit: 1000, lease: { hits: 16, ms: 5000 } });
    stores.push(s);
    const totals: number[] = [];
    for (let i = 0; i < 64; i++) {
      totals.push((await s.increment('k')).totalHits);
      await sleep(2); // the renewal's round trip lands between requests, as under steady traffic
    }
    // One replica: the totals handed out (RateLimit-Remaining) are the exact running count, across
    // lease switches, though each renewal's count held its predecessor's unused hits.
    expect(totals).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));
    // Without renewal: one in every 17. A renewal has 4 hits' time (8+ ms) to land; a slow Kv may miss one.
    expect(asks.request).toBeLessThanOrEqual(2);
    expect(asks.renewal).toBeGreaterThanOrEqual(3);
    await s.shutdown();
    expect(await counted(s, 'k')).toBe(64); // the leases' unused hits all returned
  });

  test('leases that close by time with hits unused still hand out the exact running count', async () => {
    const s = store({ hits: 8, ms: 40 });
    const totals: number[] = [];
    for (let i = 0; i < 30; i++) {
      totals.push((await s.increment('k')).totalHits);
      await sleep(i % 3 === 0 ? 12 : 1); // uneven: some leases are renewed by time, some by use
    }
    expect(totals).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    await s.shutdown();
    expect(await counted(s, 'k')).toBe(30);
  });

  test('a renewal without 8 leases of room leases nothing and counts nothing', async () => {
    const s = store({ hits: 8, limit: 70, ms: 5000 }); // first hit: room 69 >= 64, leased; then 70 - 9 = 61 < 64
    for (let i = 0; i < 7; i++) await s.increment('k'); // the first in the Kv, 6 of the 8 leased: the renewal is asked for
    await sleep(20);
    expect(await counted(s, 'k')).toBe(9);
    expect((await s.increment('k')).totalHits).toBe(8); // still on the first lease
    expect((await s.increment('k')).totalHits).toBe(9);
    expect((await s.increment('k')).totalHits).toBe(10); // counted in the Kv, one by one
    expect(await counted(s, 'k')).toBe(10);
  });

  test('leases are granted only with 8 leases of room left', async () => {
    const s = store({ hits: 8, limit: 70 }); // room after the first hit: 69 >= 64
    await s.increment('a');
    expect(await counted(s, 'a')).toBe(9);
    const tight = store({ hits: 8, limit: 64 }); // 63 < 64: counted one by one
    await tight.increment('b');
    await tight.increment('b');
    expect(await counted(tight, 'b')).toBe(2);
  });

  test('two stores on one Kv admit exactly the limit, leases included', async () => {
    const limit = 120;
    const a = store({ hits: 4, limit });
    const b = store({ hits: 4, limit });
    let admitted = 0;
    for (let round = 0; round < 20; round++) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 3 === 0 ? b : a).increment('k')));
      admitted += batch.filter((r) => r.totalHits <= limit).length;
    }
    expect(admitted).toBe(limit);
  });

  test('a hit kept out only by another store\'s lease waits for it instead of being refused', async () => {
    const limit = 80;
    const ms = 400; // a's lease outlives b's 71 hits below
    const a = store({ hits: 8, limit, ms });
    const b = store({ hits: 0, limit, ms });
    const events: string[] = [];
    const waiting = store({ hits: 0, limit, ms, onLease: (e) => events.push(e) });
    expect((await a.increment('k')).totalHits).toBe(1); // counter 9: 1 used, 8 leased
    for (let i = 0; i < 71; i++) expect((await b.increment('k')).totalHits).toBeLessThanOrEqual(limit); // counter 80
    const late = await waiting.increment('k'); // full, but only because of a's unused lease
    expect(late.totalHits).toBeLessThanOrEqual(limit);
    expect(events).toContain('waited');
    let more = 0;
    while ((await b.increment('k')).totalHits <= limit) more++;
    expect(1 + 71 + 1 + more).toBe(limit);
  });

  test('a lease never admits past its window', async () => {
    const s = store({ hits: 8, ms: 5000, windowMs: 1000 });
    await s.increment('k');
    expect((await s.increment('k')).totalHits).toBe(2); // on the lease
    await sleep(1100);
    expect((await s.increment('k')).totalHits).toBe(1); // a new window, counted in the Kv
  });

  test('unused hits go back only to the window they were leased in', async () => {
    const s = store({ hits: 8 });
    await s.increment('k');
    await kv.run(newWindow, ['rl:t:{k}', 'rl:t:{k}:leased'], [5, 30000]); // that window ended; another began
    await sleep(LEASE_MS + 50);
    expect(await counted(s, 'k')).toBe(5);
  });

  test('shutdown returns every lease\'s unused hits; later hits are counted one by one', async () => {
    const s = store({ hits: 8 });
    await s.increment('k');
    await s.increment('k');
    await s.shutdown();
    expect(await counted(s, 'k')).toBe(2);
    expect((await s.increment('k')).totalHits).toBe(3);
    expect(await counted(s, 'k')).toBe(3);
  });

  test('a release the Kv refused is retried, and the unused hits come back', async () => {
    const events: string[] = [];
    const failures = { left: 1 };
    const s = store({ hits: 8, onLease: (e) => events.push(e), on: refusingReleases(kv, failures) });
    await s.increment('k');
    for (let i = 0; i < 60 && (await counted(s, 'k')) !== 1; i++) await sleep(50);
    expect(await counted(s, 'k')).toBe(1); // the 8 leased, unused, came back
    expect(failures.left).toBe(-1); // in two tries: the refused one and its retry
    expect(events).toEqual(['granted']);
  });

  test('a release waiting to retry does not keep the process alive', async () => {
    const failures = { left: 1e9 };
    const s = store({ hits: 8, on: refusingReleases(kv, failures) });
    await s.increment('k');
    const before = liveTimers();
    for (let i = 0; i < 100 && failures.left === 1e9; i++) await sleep(10);
    expect(failures.left).toBe(1e9 - 1); // closed, its release refused: a retry is waiting
    expect(liveTimers()).toBe(before);
    expect(await counted(s, 'k')).toBe(9);
  });

  test('bad options are refused at construction', () => {
    expect(() => new KvRateLimitStore(kv, { prefix: 'x', windowMs: 999, limit: 1, lease: { hits: 0, ms: 1 } })).toThrow(/bad options/);
  });
});
