/**
 * A settle carries whatever the answer cost, so it must survive any figure: the guard caps a
 * settle above its reservation (or not a finite number: `1e300`, Infinity, NaN) at the hold,
 * counts it in `switchyard_budget_settle_capped_total{stage="settle"}`, and the hold is gone
 * afterwards, on the in-process Kv and on Redis, whether the request held budget itself or was
 * admitted on a lease.
 */
import { KVS, openTestPglite, uniqueId } from '../helpers/services';
import { until } from '../helpers/eventually';
import { createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { MemoryKv } from '../../src/kv/memory';
import type { Kv, KvScript } from '../../src/kv/kv';
import { BudgetGuard } from '../../src/budgets/guard';
import { limitsFor } from '../../src/budgets/limits';
import { listBudgets } from '../../src/budgets/repository';
import { HELD } from '../../src/budgets/scripts/held';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import type { ApiKeyRecord } from '../../src/keys/types';
import type { Database } from '../../src/store/db';

/** Test-only: a counter's value (GET) on both kinds. */
const GET: KvScript<number | null> = {
  name: 'test_get_counter',
  lua: `return redis.call('GET', KEYS[1])`,
  memory: (data, keys) => data.get(keys[0] as string),
  parse: (reply) => (typeof reply === 'string' ? Number(reply) : null),
};

let db: Database;
let gw: TestGateway;
beforeAll(async () => {
  db = await openTestPglite();
  gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`));
});
afterAll(async () => {
  await db.close();
});

describe.each(KVS)('settling any amount on $name', (kind) => {
  let kv: Kv;
  let metrics: Metrics;
  beforeEach(async () => {
    kv = await kind.open();
    metrics = new Metrics();
  });
  afterEach(() => kv.close());

  const guardOf = (lease?: { requests: number; ms: number }) =>
    new BudgetGuard({
      db,
      budgetsOf: (ws) => listBudgets(db, ws),
      kv,
      metrics,
      logger: createLogger('silent'),
      clock: Date.now,
      reservationTtlMs: 60_000,
      lease,
    });

  /** A key with a $1 lifetime limit, and its counter's keys. */
  async function limitedKey(): Promise<{ key: ApiKeyRecord; spentKey: string; holdsKey: string }> {
    const { hash } = await createInferenceKey(gw, { name: `k-${uniqueId()}`, limit: 1 });
    const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;
    const [counter] = limitsFor(key, [], Date.now());
    return { key, spentKey: counter!.spentKey, holdsKey: counter!.holdsKey };
  }

  const capped = async () =>
    (await metrics.registry.getSingleMetricAsString('switchyard_budget_settle_capped_total')).match(
      /stage="settle"\} (\d+)/,
    )?.[1];

  test.each([1e300, Infinity, NaN, 5])(
    'a settle of %s against a $0.01 hold adds the hold, is counted, and frees the hold',
    async (usd) => {
      const { key, spentKey, holdsKey } = await limitedKey();
      const guard = guardOf();
      const reservation = await guard.reserve(key, 0.01, `req-${uniqueId()}`);
      expect(await kv.run(HELD, [holdsKey], [])).toBe(10_000_000);
      await expect(reservation.settle(usd)).resolves.toBeUndefined();
      expect(await kv.run(HELD, [holdsKey], [])).toBe(0);
      expect(await kv.run(GET, [spentKey], [])).toBe(10_000_000);
      expect(await capped()).toBe('1');
      // The next request sees $0.99 left, not a failed or poisoned counter.
      await expect(guard.reserve(key, 0.99, `req-${uniqueId()}`)).resolves.toBeDefined();
      await expect(guard.reserve(key, 0.01, `req-${uniqueId()}`)).rejects.toMatchObject({ status: 402 });
    },
  );

  test('a settle within its hold is charged as it is and not counted as capped', async () => {
    const { key, spentKey } = await limitedKey();
    const reservation = await guardOf().reserve(key, 0.01, `req-${uniqueId()}`);
    await reservation.settle(0.004);
    expect(await kv.run(GET, [spentKey], [])).toBe(4_000_000);
    expect(await capped()).toBeUndefined();
  });

  test('requests admitted on a lease are capped at their own estimate, and the lease settles what they were charged', async () => {
    const { key, spentKey, holdsKey } = await limitedKey();
    const guard = guardOf({ requests: 8, ms: 60_000 });
    const first = await guard.reserve(key, 0.001, `req-${uniqueId()}`); // held itself; asks for a lease of 8 requests' worth
    await until('the lease to be held', async () => (await kv.run(HELD, [holdsKey], [])) === 9_000_000);
    const leased = await guard.reserve(key, 0.001, `req-${uniqueId()}`);
    expect(await metrics.registry.getSingleMetricAsString('switchyard_budget_reservations_total')).toContain(
      'result="lease"} 1',
    );
    await first.settle(1e300);
    await leased.settle(Infinity);
    await guard.close();
    expect(await kv.run(HELD, [holdsKey], [])).toBe(0);
    expect(await kv.run(GET, [spentKey], [])).toBe(2_000_000);
    expect(await capped()).toBe('2');
  });
});
