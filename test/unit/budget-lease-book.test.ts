/**
 * The replica's lease book (src/budgets/leases.ts) on its own: when a lease is asked for, what it
 * admits, when it closes, and that its settle is retried while Redis is unreachable (and not
 * retried at shutdown). The two-replica behaviour over Redis is in budget-leases.test.ts.
 */
import { LeaseBook, SETTLE_RETRY_MS } from '../../src/budgets/leases';
import { HEADROOM_LEASES } from '../../src/kv/lease-policy';

// Lease closing and settle retries run on timers: fake ones, advanced by exactly the delays under test.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

type Call = [string, string[], number];

function book(results: boolean[], ms = 20) {
  const calls: Call[] = [];
  const leases = new LeaseBook({
    requests: 4,
    ms,
    settle: (id, keys, nanos) => {
      calls.push([id, keys, nanos]);
      return Promise.resolve(results.shift() ?? true);
    },
  });
  return { leases, calls };
}

describe('LeaseBook', () => {
  test('a lease is asked for only with enough room, once at a time per signature', () => {
    const { leases } = book([]);
    expect(leases.begin('s', 10, 40 * HEADROOM_LEASES - 1)).toBe(0);
    expect(leases.begin('s', 10, 40 * HEADROOM_LEASES)).toBe(40);
    expect(leases.begin('s', 10, 1e9)).toBe(0); // one already being asked for
    leases.abandon('s');
    expect(leases.begin('s', 10, 1e9)).toBe(40);
    expect(new LeaseBook({ requests: 0, ms: 20, settle: () => Promise.resolve(true) }).begin('s', 10, 1e9)).toBe(0);
  });

  test('admits up to its amount, then closes and settles to the real cost once the last request is done', async () => {
    const { leases, calls } = book([], 60_000);
    leases.add('s', 'lease:1', ['k'], 40);
    const a = leases.take('s', 10);
    const b = leases.take('s', 30);
    expect(a && b).toBeTruthy();
    expect(leases.take('s', 1)).toBeNull(); // used up: closed
    await a?.settle(8e-9);
    expect(calls).toEqual([]); // b still running
    await b?.release();
    await advance(0);
    expect(calls).toEqual([['lease:1', ['k'], 8]]);
  });

  test('a failed settle is retried until it succeeds', async () => {
    const { leases, calls } = book([false, true]);
    leases.add('s', 'lease:2', ['k'], 40);
    await leases.take('s', 10)?.settle(5e-9);
    await advance(20 + 40);
    expect(calls).toHaveLength(1);
    await advance((SETTLE_RETRY_MS[0] as number) + 50);
    expect(calls).toEqual([
      ['lease:2', ['k'], 5],
      ['lease:2', ['k'], 5],
    ]);
    await advance((SETTLE_RETRY_MS[1] as number) + 50);
    expect(calls).toHaveLength(2);
  });

  test('shutdown settles open leases at once, with one attempt and no timed retries', async () => {
    const { leases, calls } = book([false], 60_000);
    leases.add('s', 'lease:3', ['k'], 40);
    await leases.take('s', 10)?.settle(7e-9);
    await leases.closeAll();
    expect(calls).toEqual([['lease:3', ['k'], 7]]);
    await advance((SETTLE_RETRY_MS[0] as number) + 50);
    expect(calls).toHaveLength(1);
  });
});
