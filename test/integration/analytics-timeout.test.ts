/**
 * 408 `Operation timed out. Please try again later.` when an analytics query runs past
 * `analytics.timeoutMs`, against a table made large with generate_series. On Postgres the
 * statement is cancelled by the server (`statement_timeout`, SQLSTATE 57014 seen by the
 * gateway); PGlite accepts the setting but cannot interrupt a statement, so the gateway answers
 * 408 for a statement that finished past the deadline.
 */
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createTestGateway, gatewayApp } from '../helpers/gateway';
import type { Database, Queryable } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

/** Enough rows that the query takes well over 1 ms; fewer on PGlite, which loads them more slowly. */
const rowsFor = (kind: string) => (kind === 'postgres' ? 200_000 : 50_000);

describe.each(DATABASES)('analytics timeout on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;

  beforeAll(async () => {
    db = await dbKind.open();
    kv = await KVS[0]!.open();
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  test('a query past the timeout → 408, cancelled in the database on Postgres; the same query within it → 200', async () => {
    const gw = await createTestGateway(db, kv);
    await db.query(
      `INSERT INTO generations (id, created_at, org_id, workspace_id, key_hash, model, provider, tokens_prompt, cost_usd, latency_ms, generation_time_ms)
       SELECT 'gen-t-' || i, timestamptz '2026-11-01T00:00:00Z' + (i % 86400) * interval '10 seconds', $1, $2, repeat('a', 64),
              'm' || (i % 7), 'p' || (i % 5), i % 1000, 0.0001, i % 997, 1 + i % 50
         FROM generate_series(1, ${rowsFor(dbKind.name)}) AS s(i)`,
      [gw.orgId, gw.defaultWorkspaceId],
    );
    const codes: string[] = [];
    const spied: Database = {
      ...db,
      transaction: (fn) =>
        db.transaction((tx) => {
          const q: Queryable = {
            query: <T>(sql: string, params?: readonly unknown[]) =>
              tx.query<T>(sql, params).catch((err: { code?: string }) => {
                codes.push(String(err.code));
                throw err;
              }),
          };
          return fn(q);
        }),
    };
    const slow = await gatewayApp(spied, kv, { analytics: { timeoutMs: 1 } });
    const body = {
      metrics: ['p99_latency', 'p50_throughput', 'request_count'],
      dimensions: ['generation_id'],
      time_range: { start: '2026-11-01T00:00:00Z', end: '2026-11-11T00:00:00Z' },
    };
    const res = await request(slow.app)
      .post('/api/v1/analytics/query')
      .set('Authorization', bearer(gw.mgmtKey))
      .send(body);
    expect(res.status).toBe(408);
    expect(res.body).toEqual({ error: { code: 408, message: 'Operation timed out. Please try again later.' } });
    if (dbKind.name === 'postgres') expect(codes).toContain('57014');
    expect(await slow.deps.metrics.registry.getSingleMetricAsString('switchyard_analytics_queries_total')).toMatch(
      /outcome="timeout"} 1/,
    );

    // The database is usable afterwards, and with the default timeout the same query answers.
    const ok = await request(gw.app)
      .post('/api/v1/analytics/query')
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ ...body, limit: 3 });
    expect(ok.status).toBe(200);
    expect(ok.body.data.metadata).toMatchObject({ row_count: 3, truncated: true });
  });
});
