/**
 * The replica-coherent cache when its system of record is down: an expired entry keeps being
 * served (stale if error) for a bounded time, invalidations still drop entries, and past the
 * allowance the outage answers 503 instead of serving data of unknown age.
 */
import { CoherentCache } from '../../src/kv/coherent-cache';
import { MemoryKv } from '../../src/kv/memory';
import { Metrics } from '../../src/observability/metrics';

function setup() {
  let now = 1_000_000;
  /** Move the cache's clock on by `ms` (its TTL and stale allowance count on it). */
  const advance = (ms: number) => {
    now += ms;
  };
  const store = new Map<string, string>([['a', 'A1']]);
  const db = { down: false, loads: 0 };
  const kv = new MemoryKv('t:cc:');
  const metrics = new Metrics();
  const cache = new CoherentCache<string>(kv, metrics, {
    name: 'keys',
    ttlMs: 40,
    max: 100,
    staleIfErrorMs: 150,
    clock: () => now,
    load: (id) => {
      db.loads++;
      if (db.down) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
      return Promise.resolve(store.get(id) ?? null);
    },
  });
  return { store, db, cache, kv, metrics, advance };
}

test('an expired entry is served stale while the database is down, then refreshed when it is back', async () => {
  const { store, db, cache, kv, metrics, advance } = setup();
  await cache.start();
  expect(await cache.get('a')).toBe('A1');
  db.down = true;
  advance(60); // past the TTL
  const loadsBefore = db.loads;
  expect(await cache.get('a')).toBe('A1');
  expect(await cache.get('a')).toBe('A1');
  // the failed reload is retried once per TTL, not on every request
  expect(db.loads - loadsBefore).toBe(1);
  const stale = (await metrics.cacheLookups.get()).values.find((v) => v.labels.result === 'stale');
  expect(stale?.value).toBe(1);
  advance(60);
  db.down = false;
  store.set('a', 'A2');
  expect(await cache.get('a')).toBe('A2');
  await kv.close();
});

test('past the stale allowance the database error is the answer (→ 503); a never-cached id fails at once', async () => {
  const { db, cache, kv, advance } = setup();
  await cache.start();
  expect(await cache.get('a')).toBe('A1');
  db.down = true;
  await expect(cache.get('b')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  advance(40 + 150 + 30);
  await expect(cache.get('a')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  await kv.close();
});

test('an invalidation during the outage drops the entry: a deleted key is not served stale', async () => {
  const { db, cache, kv } = setup();
  await cache.start();
  expect(await cache.get('a')).toBe('A1');
  db.down = true;
  await cache.invalidate('a');
  await expect(cache.get('a')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  await kv.close();
});

test('peek answers from a fresh entry only, and leaves an expired one for the stale-if-error reload', async () => {
  const { db, cache, kv, advance } = setup();
  await cache.start();
  expect(cache.peek('a')).toBeUndefined(); // never loaded: the caller must get()
  expect(await cache.get('a')).toBe('A1');
  expect(await cache.get('nope')).toBeNull();
  const loads = db.loads;
  expect(cache.peek('a')).toBe('A1');
  expect(cache.peek('nope')).toBeNull(); // "nothing there" is cached too
  expect(db.loads).toBe(loads); // peeking never loads
  db.down = true;
  advance(60); // past the TTL
  expect(cache.peek('a')).toBeUndefined();
  expect(await cache.get('a')).toBe('A1'); // the peek did not drop the entry the outage falls back on
  db.down = false;
  await cache.invalidate('a');
  expect(cache.peek('a')).toBeUndefined();
  await kv.close();
});

test('the cache holds at most `max` entries: the least recently used is loaded again', async () => {
  const kv = new MemoryKv('t:cc-max:');
  const loads: string[] = [];
  const cache = new CoherentCache<string>(kv, new Metrics(), {
    name: 'keys',
    ttlMs: 60_000,
    max: 2,
    load: (id) => {
      loads.push(id);
      return Promise.resolve(id.toUpperCase());
    },
  });
  await cache.start();
  expect(await cache.get('a')).toBe('A');
  expect(await cache.get('b')).toBe('B');
  expect(await cache.get('a')).toBe('A'); // a is now the most recently used
  expect(await cache.get('c')).toBe('C'); // evicts b
  expect(cache.peek('a')).toBe('A');
  expect(cache.peek('b')).toBeUndefined();
  expect(cache.peek('c')).toBe('C');
  expect(loads).toEqual(['a', 'b', 'c']);
  await kv.close();
});
