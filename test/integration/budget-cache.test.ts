/**
 * The enforcement path reads budgets from a replica-coherent cache: a budget set, lowered or
 * deleted through one app instance governs the very next request on another instance.
 */
import request from 'supertest';
import { KVS, openTestPglite, uniqueId } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, gatewayApp } from '../helpers/gateway';
import { spendApp } from './budgets-helpers';
import { until } from '../helpers/eventually';
import type { Database } from '../../src/store/db';

let db: Database;
beforeAll(async () => {
  db = await openTestPglite();
});
afterAll(() => db.close());

test.each(KVS)('budget changes on instance A apply at once on instance B ($name)', async (kvKind) => {
  const prefix = `t:${uniqueId()}:`;
  const kvA = await kvKind.open(prefix);
  const kvB = kvKind.name === 'memory' ? kvA : await kvKind.open(prefix);
  try {
    // A long TTL, so only the invalidation message can explain B seeing the change.
    const a = await createTestGateway(db, kvA, { auth: { keyCacheTtlMs: 600000 } });
    // Both gateways' caches are subscribed once assembled (their start() awaits the confirmation).
    const b = await gatewayApp(db, kvB, { auth: { keyCacheTtlMs: 600000 } });
    const { secret } = await createInferenceKey(a);
    const spendOnB = () =>
      request(spendApp(b.deps)).post('/test/spend').set('Authorization', bearer(secret)).send({ estimate: 0.5 });
    const mgmt = bearer(a.mgmtKey);

    expect((await spendOnB()).status).toBe(200); // no budget yet; B has now cached "no budgets"
    await request(a.app)
      .put('/api/v1/workspaces/default/budgets/daily')
      .set('Authorization', mgmt)
      .send({ limit_usd: 0.6 })
      .expect(200);
    const waitFor = async (status: number) => {
      let res = await spendOnB();
      await until(`a ${status} on B`, async () => (res = await spendOnB()).status === status, {
        timeoutMs: 2000,
        everyMs: 20,
      });
      return res;
    };
    const refused = await waitFor(402);
    expect(refused.body.error.metadata).toMatchObject({
      limit_source: 'workspace_budget',
      interval: 'daily',
      limit_usd: 0.6,
    });
    await request(a.app).delete('/api/v1/workspaces/default/budgets/daily').set('Authorization', mgmt).expect(200);
    await waitFor(200);
  } finally {
    if (kvB !== kvA) await kvB.close();
    await kvA.close();
  }
});
