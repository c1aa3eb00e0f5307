/**
 * The budget Lua scripts and their in-process twins give the same answers (contract run
 * against both): missing counters are reported, rebuilt at most once (SET NX semantics, a
 * later rebuild value never overwrites), holds count until they expire, settle never creates
 * a lost counter, a settle that cannot add its amount fails before it drops a hold, and the
 * refusal names the limit that did not fit.
 */
import { KVS, uniqueId } from '../helpers/services';
import type { Kv } from '../../src/kv/kv';
import type { KvScript } from '../../src/kv/kv';
import { HELD_FIELD, LEASE_PREFIX, NEXT_FIELD, RESERVE, UNREBUILT_FIELD } from '../../src/budgets/scripts/reserve';
import { SETTLE } from '../../src/budgets/scripts/settle';
import { RENEW } from '../../src/budgets/scripts/renew';

const T0 = 1_800_000_000_000;
const TTL = 60_000;

/** Test-only: read a hash (HGETALL) the same way on both kinds. */
const DUMP: KvScript<Record<string, string>> = {
  name: 'test_dump_hash',
  lua: `return redis.call('HGETALL', KEYS[1])`,
  memory: (data, keys) => data.hgetall(keys[0] as string),
  parse(reply) {
    if (!Array.isArray(reply)) return reply as Record<string, string>;
    const out: Record<string, string> = {};
    for (let i = 0; i < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
    return out;
  },
};

/** Test-only: read a string key (GET) the same way on both kinds. */
const GET: KvScript<string | null> = {
  name: 'test_get',
  lua: `return redis.call('GET', KEYS[1])`,
  memory: (data, keys) => data.get(keys[0] as string),
  parse: (reply) => (typeof reply === 'string' ? reply : null),
};

/** Test-only: write hash fields directly (a holds hash as an older release left it). */
const SEED: KvScript<number> = {
  name: 'test_seed_hash',
  lua: `for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end return 1`,
  memory(data, keys, args) {
    for (let i = 0; i < args.length; i += 2) data.hset(keys[0] as string, args[i] as string, args[i + 1] as string);
    return 1;
  },
  parse: Number,
};

/** Deletes its keys (as Redis losing them would). */
const SEED_DEL: KvScript<number> = {
  name: 'test_del_keys',
  lua: `for i = 1, #KEYS do redis.call('DEL', KEYS[i]) end return 1`,
  memory(data, keys) {
    for (const k of keys) data.del(k);
    return 1;
  },
  parse: Number,
};

describe.each(KVS)('budget scripts on $name', (kind) => {
  let kv: Kv;
  let keys: string[];
  beforeEach(async () => {
    kv = await kind.open(`t:${uniqueId()}:`);
    keys = ['a:spent', 'a:holds', 'b:spent', 'b:holds'];
  });
  afterEach(() => kv.close());

  /** Reserve `amount` at `now` against limits A and B (with optional rebuild values). */
  const reserve = (
    id: string,
    amount: number,
    now: number,
    limits: [number, number],
    rebuild: [string, string] = ['', ''],
  ) => kv.run(RESERVE, keys, [id, amount, now, now + TTL, TTL, limits[0], rebuild[0], 0, limits[1], rebuild[1], 0]);

  test('missing counters are reported without reserving; rebuilt once; a later rebuild value is ignored', async () => {
    expect(await reserve('r1', 10, T0, [100, 100])).toEqual({ kind: 'missing', indexes: [1, 2] });
    expect(await reserve('r1', 10, T0, [100, 100], ['30', '50'])).toMatchObject({ kind: 'reserved' });
    // Counters now exist: a second "rebuild" value must not replace them (never added twice).
    expect(await reserve('r2', 10, T0, [100, 100], ['0', '0'])).toMatchObject({ kind: 'reserved' });
    // B: 50 spent + 20 held; 31 more does not fit, 30 does.
    expect(await reserve('r3', 31, T0, [1000, 100])).toEqual({ kind: 'refused', index: 2, usedNanos: 70 });
    expect(await reserve('r3', 30, T0, [1000, 100])).toMatchObject({ kind: 'reserved' });
    expect(await reserve('r4', 0, T0, [1000, 100])).toEqual({ kind: 'refused', index: 2, usedNanos: 100 });
  });

  test('spend settled while a counter is missing is added by its rebuild (issue 61 item 6)', async () => {
    await reserve('h1', 10, T0, [1000, 1000], ['0', '0']);
    await reserve('h2', 10, T0, [1000, 1000]);
    await kv.run(SEED_DEL, ['a:spent', 'b:spent'], []); // Redis lost the counters, not the holds
    expect(await kv.run(SETTLE, keys, ['h1', 7])).toBe(0); // no counter to add to
    expect(await kv.run(SETTLE, keys, ['h2', 0])).toBe(0); // a release leaves nothing behind
    expect((await kv.run(DUMP, ['a:holds'], []))[UNREBUILT_FIELD]).toBe('7');
    // h1's record is not in the table yet: the sum is 100, the rebuild adds the 7 settled meanwhile.
    expect(await reserve('r', 0, T0, [1000, 1000])).toEqual({ kind: 'missing', indexes: [1, 2] });
    expect(await reserve('r', 0, T0, [1000, 1000], ['100', '100'])).toMatchObject({ kind: 'reserved' });
    expect(await reserve('big', 894, T0, [1000, 1000])).toEqual({ kind: 'refused', index: 1, usedNanos: 107 });
    expect((await kv.run(DUMP, ['a:holds'], []))[UNREBUILT_FIELD]).toBeUndefined(); // added once, then gone
    await kv.run(SETTLE, keys, ['r', 3]);
    expect(await reserve('big', 891, T0, [1000, 1000])).toEqual({ kind: 'refused', index: 1, usedNanos: 110 });
  });

  test("renew moves a live hold's expiry; a settled hold is not brought back (issue 61 item 4)", async () => {
    await reserve('x', 0, T0, [100, 100], ['0', '0']);
    await reserve('long', 60, T0, [100, 100]);
    expect(await kv.run(RENEW, ['a:holds', 'b:holds'], ['long', T0 + 3 * TTL, TTL])).toBe(2);
    expect(await reserve('racer', 50, T0 + 2 * TTL, [100, 100])).toMatchObject({ kind: 'refused', usedNanos: 60 });
    await kv.run(SETTLE, keys, ['long', 10]);
    expect(await kv.run(RENEW, ['a:holds', 'b:holds'], ['long', T0 + 4 * TTL, TTL])).toBe(0);
    expect((await kv.run(DUMP, ['a:holds'], []))['long']).toBeUndefined();
    expect(await reserve('racer', 50, T0 + 2 * TTL, [100, 100])).toMatchObject({ kind: 'reserved' });
  });

  test('settle replaces a hold with the real cost; release frees it; holds expire at their deadline', async () => {
    await reserve('x', 0, T0, [100, 100], ['0', '0']);
    expect(await reserve('h1', 60, T0, [100, 100])).toMatchObject({ kind: 'reserved' });
    expect(await reserve('h2', 50, T0, [100, 100])).toMatchObject({ kind: 'refused', index: 1, usedNanos: 60 });
    expect(await kv.run(SETTLE, keys, ['h1', 20])).toBe(2);
    expect(await reserve('h2', 50, T0, [100, 100])).toMatchObject({ kind: 'reserved' }); // 20 + 50
    expect(await kv.run(SETTLE, keys, ['h2', 0])).toBe(2); // release
    expect(await reserve('h3', 80, T0, [100, 100])).toMatchObject({ kind: 'reserved' }); // 20 + 80
    expect(await reserve('h4', 1, T0 + TTL - 1, [100, 100])).toMatchObject({ kind: 'refused', usedNanos: 100 });
    expect(await reserve('h4', 1, T0 + TTL, [100, 100])).toMatchObject({ kind: 'reserved' }); // h3 expired
  });

  test('the running total of the holds follows reserve and settle (no walk of the holds per request)', async () => {
    await reserve('x', 0, T0, [1e12, 1e12], ['0', '0']);
    for (let i = 1; i <= 40; i++)
      expect(await reserve(`r:${i}`, i, T0 + i, [1e12, 1e12])).toMatchObject({ kind: 'reserved' });
    for (let i = 1; i <= 40; i += 2) await kv.run(SETTLE, keys, [`r:${i}`, 0]);
    // Live holds: the even ones, 2 + 4 + … + 40 = 420; nothing spent.
    const holds = await kv.run(DUMP, ['a:holds'], []);
    expect(holds[HELD_FIELD]).toBe('420');
    expect(holds[NEXT_FIELD]).toBe(String(T0 + TTL)); // x's, the earliest ever added (a lower bound)
    expect(Object.keys(holds).filter((f) => !f.startsWith('#'))).toHaveLength(21);
    expect(await reserve('big', 1e12, T0 + 100, [1e12, 1e12])).toEqual({ kind: 'refused', index: 1, usedNanos: 420 });
    // Settling an unknown (expired, pruned) hold changes no total.
    await kv.run(SETTLE, keys, ['r:1', 5]);
    expect((await kv.run(DUMP, ['b:holds'], []))[HELD_FIELD]).toBe('420');
  });

  test('once the earliest hold is due, the holds are walked: expired ones dropped, total and next rebuilt', async () => {
    await reserve('x', 0, T0, [1000, 1000], ['0', '0']);
    await reserve('early', 100, T0, [1000, 1000]);
    await reserve('late', 7, T0 + 30_000, [1000, 1000]);
    expect(await reserve('probe', 1000, T0 + TTL - 1, [1000, 1000])).toEqual({
      kind: 'refused',
      index: 1,
      usedNanos: 107,
    });
    expect(await reserve('probe', 1000, T0 + TTL, [1000, 1000])).toEqual({ kind: 'refused', index: 1, usedNanos: 7 });
    const holds = await kv.run(DUMP, ['a:holds'], []);
    expect(holds).toEqual({
      late: `7|${T0 + 30_000 + TTL}`,
      [HELD_FIELD]: '7',
      [NEXT_FIELD]: String(T0 + 30_000 + TTL),
    });
    // When the last one expires the hash goes and nothing is held.
    expect(await reserve('probe', 1000, T0 + 30_000 + TTL, [1000, 1000])).toMatchObject({ kind: 'reserved' });
  });

  test('a holds hash without a running total (written by an older release) is walked once and counted', async () => {
    await kv.run(SEED, ['a:holds'], ['old:1', `300|${T0 + TTL}`, 'old:2', `5|${T0 - 1}`]);
    expect(await reserve('r', 701, T0, [1000, 10_000], ['0', '0'])).toEqual({
      kind: 'refused',
      index: 1,
      usedNanos: 300,
    });
    expect(await kv.run(DUMP, ['a:holds'], [])).toEqual({
      'old:1': `300|${T0 + TTL}`,
      [HELD_FIELD]: '300',
      [NEXT_FIELD]: String(T0 + TTL),
    });
    expect(await reserve('r', 700, T0, [1000, 10_000])).toMatchObject({ kind: 'reserved' });
  });

  test('totals beyond 15 digits stay exact (no float formatting in the scripts)', async () => {
    const big = 123_456_789_012_345; // nano-USD, about 123k USD
    await reserve('x', 0, T0, [1e16, 1e16], ['0', '0']);
    expect(await reserve('a:1', big, T0, [1e16, 1e16])).toMatchObject({ kind: 'reserved' });
    expect(await reserve('a:2', big, T0, [1e16, 1e16])).toMatchObject({ kind: 'reserved' });
    expect(await kv.run(SETTLE, keys, ['a:1', 0])).toBe(2);
    expect((await kv.run(DUMP, ['a:holds'], []))[HELD_FIELD]).toBe(String(big));
    expect(await reserve('probe', 1e16, T0 + 1, [1e16, 1e16])).toEqual({ kind: 'refused', index: 1, usedNanos: big });
  });

  test('settle never creates a counter that was lost (the next reserve rebuilds it from usage)', async () => {
    expect(await kv.run(SETTLE, keys, ['ghost', 25])).toBe(0);
    expect(await reserve('r', 1, T0, [100, 100])).toEqual({ kind: 'missing', indexes: [1, 2] });
  });

  test('a reservation reports the room left under the tightest limit', async () => {
    await reserve('r0', 0, T0, [100, 100], ['10', '40']);
    expect(await reserve('r1', 5, T0, [100, 100])).toEqual({ kind: 'reserved', roomNanos: 55 });
    expect(await reserve('r2', 5, T0, [30, 100])).toEqual({ kind: 'reserved', roomNanos: 10 });
  });

  test('a request kept out only by live leases is told so (leased); one that would not fit anyway is refused', async () => {
    await reserve('r0', 0, T0, [100, 100], ['0', '0']);
    expect(await reserve(`${LEASE_PREFIX}x`, 60, T0, [100, 100])).toMatchObject({ kind: 'reserved' });
    expect(await reserve('r1', 30, T0, [100, 100])).toMatchObject({ kind: 'reserved' });
    // 30 held + 60 leased: 20 more fits only without the lease.
    expect(await reserve('r2', 20, T0, [100, 100])).toEqual({ kind: 'leased', index: 1, usedNanos: 90 });
    // 71 would not fit even without it.
    expect(await reserve('r3', 71, T0, [100, 100])).toEqual({ kind: 'refused', index: 1, usedNanos: 90 });
    // Once the lease is settled to what it admitted (5), the 20 fits.
    await kv.run(SETTLE, keys, [`${LEASE_PREFIX}x`, 5]);
    expect(await reserve('r2', 20, T0, [100, 100])).toEqual({ kind: 'reserved', roomNanos: 45 });
  });

  test('an amount that is not plain digits fails the whole settle: the hold is kept, nothing is added', async () => {
    await reserve('x', 0, T0, [1000, 1000], ['7', '7']);
    expect(await reserve('h', 60, T0, [1000, 1000])).toMatchObject({ kind: 'reserved' });
    for (const bad of ['1e+300', 'Infinity', 'NaN', '-5', '2.5', '', '12345678901234567']) {
      await expect(kv.run(SETTLE, keys, ['h', bad])).rejects.toThrow(/budget_settle: the amount must be plain digits/);
    }
    expect(await kv.run(DUMP, ['a:holds'], [])).toMatchObject({ h: `60|${T0 + TTL}`, [HELD_FIELD]: '60' });
    expect(await kv.run(GET, ['a:spent'], [])).toBe('7');
    expect(await kv.run(SETTLE, keys, ['h', 9_007_199_254_740_991])).toBe(2);
    expect(await kv.run(DUMP, ['a:holds'], [])).toMatchObject({ [HELD_FIELD]: '0' });
    expect(await kv.run(GET, ['a:spent'], [])).toBe('9007199254740998');
  });

  test('a counter with no room for the amount fails the settle before any write', async () => {
    await reserve('x', 0, T0, [1e18, 1e18], ['8999999999999999000', '0']);
    expect(await reserve('h', 5, T0, [1e19, 1e19])).toMatchObject({ kind: 'reserved' });
    await expect(kv.run(SETTLE, keys, ['h', 9_000_000_000_000])).rejects.toThrow(/no room/);
    expect(await kv.run(DUMP, ['b:holds'], [])).toMatchObject({ h: `5|${T0 + TTL}`, [HELD_FIELD]: '5' });
    expect(await kv.run(GET, ['b:spent'], [])).toBe('0');
  });

  test('malformed replies are rejected by the parser', () => {
    expect(() => RESERVE.parse([9])).toThrow(/malformed/);
    expect(() => RESERVE.parse('x')).toThrow(/malformed/);
    expect(() => SETTLE.parse('1')).toThrow(/malformed/);
  });
});
