/**
 * A settle that cannot reach the budget store never fails the request that already has its
 * answer, and is not swallowed either: it is logged (message and stack, through a real logger)
 * and counted in `switchyard_budget_store_errors_total{operation="settle"}`.
 */
import { PassThrough } from 'node:stream';
import { openTestPglite, uniqueId } from '../helpers/services';
import { createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { MemoryKv } from '../../src/kv/memory';
import type { Kv } from '../../src/kv/kv';
import { BudgetGuard } from '../../src/budgets/guard';
import { listBudgets } from '../../src/budgets/repository';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import type { ApiKeyRecord } from '../../src/keys/types';
import type { Database } from '../../src/store/db';

let db: Database;
let gw: TestGateway;
beforeAll(async () => {
  db = await openTestPglite();
  gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`));
});
afterAll(async () => {
  await db.close();
});

test('a failed settle is logged with its error and counted', async () => {
  const inner = new MemoryKv(`t:${uniqueId()}:`);
  // The store answers the reservation, then becomes unreachable before the settle.
  const kv: Kv = Object.assign(Object.create(inner) as Kv, {
    run: (script: { name: string }, keys: string[], args: unknown[]) =>
      script.name === 'budget_settle'
        ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'))
        : inner.run(script as never, keys, args as never),
  });
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => void (written += chunk.toString('utf8')));
  const metrics = new Metrics();
  const guard = new BudgetGuard({
    db,
    budgetsOf: (ws) => listBudgets(db, ws),
    kv,
    metrics,
    logger: createLogger('warn', stream),
    clock: Date.now,
    reservationTtlMs: 60000,
  });
  const { hash } = await createInferenceKey(gw, { name: 'limited', limit: 1 });
  const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;

  const reservation = await guard.reserve(key, 0.01, 'req-1');
  await expect(reservation.settle(0.004)).resolves.toBeUndefined();
  await new Promise((resolve) => setImmediate(resolve));

  const line = JSON.parse(written.trim()) as {
    level: string;
    message: string;
    err: { message: string; stack: string };
  };
  expect(line).toMatchObject({
    level: 'warn',
    message: 'budget settle failed',
    err: { name: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:6379' },
  });
  expect(line.err.stack).toContain('connect ECONNREFUSED');
  expect(await metrics.registry.getSingleMetricAsString('switchyard_budget_store_errors_total')).toContain(
    'switchyard_budget_store_errors_total{operation="settle"} 1',
  );
});
