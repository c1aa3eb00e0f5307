/**
 * The budget Lua scripts and their in-process twins give the same answers (contract run
 * against both): missing counters are reported, rebuilt at most once (SET NX semantics, a
 * later rebuild value never overwrites), holds count until they expire, settle never creates
 * a lost counter, and the refusal names the limit that did not fit.
 */
import { KVS, uniqueId } from '../helpers/services';
import type { Kv } from '../../src/kv/kv';
import { RESERVE } from '../../src/budgets/scripts/reserve';
import { SETTLE } from '../../src/budgets/scripts/settle';

const T0 = 1_800_000_000_000;
const TTL = 60_000;

describe.each(KVS)('budget scripts on $name', (kind) => {
  let kv: Kv;
  let keys: string[];
  beforeEach(async () => {
    kv = await kind.open(`t:${uniqueId()}:`);
    keys = ['a:spent', 'a:holds', 'b:spent', 'b:holds'];
  });
  afterEach(() => kv.close());

  /** Reserve `amount` at `now` against limits A and B (with optional rebuild values). */
  const reserve = (id: string, amount: number, now: number, limits: [number, number], rebuild: [string, string] = ['', '']) =>
    kv.run(RESERVE, keys, [id, amount, now, now + TTL, TTL, limits[0], rebuild[0], 0, limits[1], rebuild[1], 0]);

  test('missing counters are reported without reserving; rebuilt once; a later rebuild value is ignored', async () => {
    expect(await reserve('r1', 10, T0, [100, 100])).toEqual({ kind: 'missing', indexes: [1, 2] });
    expect(await reserve('r1', 10, T0, [100, 100], ['30', '50'])).toEqual({ kind: 'reserved' });
    // Counters now exist: a second "rebuild" value must not replace them (never added twice).
    expect(await reserve('r2', 10, T0, [100, 100], ['0', '0'])).toEqual({ kind: 'reserved' });
    // B: 50 spent + 20 held; 31 more does not fit, 30 does.
    expect(await reserve('r3', 31, T0, [1000, 100])).toEqual({ kind: 'refused', index: 2, usedNanos: 70 });
    expect(await reserve('r3', 30, T0, [1000, 100])).toEqual({ kind: 'reserved' });
    expect(await reserve('r4', 0, T0, [1000, 100])).toEqual({ kind: 'refused', index: 2, usedNanos: 100 });
  });

  test('settle replaces a hold with the real cost; release frees it; holds expire at their deadline', async () => {
    await reserve('x', 0, T0, [100, 100], ['0', '0']);
    expect(await reserve('h1', 60, T0, [100, 100])).toEqual({ kind: 'reserved' });
    expect(await reserve('h2', 50, T0, [100, 100])).toMatchObject({ kind: 'refused', index: 1, usedNanos: 60 });
    expect(await kv.run(SETTLE, keys, ['h1', 20])).toBe(2);
    expect(await reserve('h2', 50, T0, [100, 100])).toEqual({ kind: 'reserved' }); // 20 + 50
    expect(await kv.run(SETTLE, keys, ['h2', 0])).toBe(2); // release
    expect(await reserve('h3', 80, T0, [100, 100])).toEqual({ kind: 'reserved' }); // 20 + 80
    expect(await reserve('h4', 1, T0 + TTL - 1, [100, 100])).toMatchObject({ kind: 'refused', usedNanos: 100 });
    expect(await reserve('h4', 1, T0 + TTL, [100, 100])).toEqual({ kind: 'reserved' }); // h3 expired
  });

  test('settle never creates a counter that was lost (the next reserve rebuilds it from usage)', async () => {
    expect(await kv.run(SETTLE, keys, ['ghost', 25])).toBe(0);
    expect(await reserve('r', 1, T0, [100, 100])).toEqual({ kind: 'missing', indexes: [1, 2] });
  });

  test('malformed replies are rejected by the parser', () => {
    expect(() => RESERVE.parse([9])).toThrow(/malformed/);
    expect(() => RESERVE.parse('x')).toThrow(/malformed/);
    expect(() => SETTLE.parse('1')).toThrow(/malformed/);
  });
});
