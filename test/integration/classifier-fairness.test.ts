/**
 * Tagging is fair between organizations (issue #43): organization A flooding the tagging queue
 * neither crowds out organization B's request nor delays its tags behind A's backlog. Each
 * organization's queue is bounded (the overflow dropped and counted), organizations are served in
 * turn, and tags are written in small batches, at once when the batch has taken `flushMs` of the
 * injected clock (fixed, unless a test moves it). Checked by counting the work done (which requests each tag write holds), never by
 * timing. Classifiers are created through HTTP; the flood goes straight to `observe`, the call the
 * embeddings route makes once an answer is sent, so the whole backlog is queued before tagging starts.
 */
import request from 'supertest';
import { DATABASES, TS_LOADER } from '../helpers/services';
import { bearer, openTestGateway, type TestGateway } from '../helpers/gateway';
import { provisionOrg } from '../../src/orgs/provision';
import { ClassifierService, type ClassifierServiceOptions } from '../../src/classifiers/service';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const DIMENSIONS = [{ name: 'topic', rules: [{ value: 'billing', keywords: ['invoice'] }] }];

let db: Database;
let kv: Kv;
let gw: TestGateway;
const a = { orgId: '', workspaceId: '' };
const b = { orgId: '', workspaceId: '' };

beforeAll(async () => {
  ({ db, kv, gw } = await openTestGateway(DATABASES[0]!));
  const other = await db.transaction((tx) => provisionOrg(tx, 'Other Org'));
  Object.assign(a, { orgId: gw.orgId, workspaceId: gw.defaultWorkspaceId });
  Object.assign(b, { orgId: other.org.id, workspaceId: other.workspace.id });
  for (const secret of [gw.mgmtKey, other.secret]) {
    await request(gw.app)
      .post('/api/v1/workspaces/default/classifiers')
      .set('Authorization', bearer(secret))
      .send({ name: 'Topics', dimensions: DIMENSIONS })
      .expect(201);
  }
});
afterAll(async () => {
  await gw.deps.classifiers.close();
  await gw.deps.routing.close();
  await gw.deps.recorder.close();
  await kv.close();
  await db.close();
});

/** A service over `db` that records, in order, the generation ids each tag write holds. */
function recordingService(opts: Partial<ClassifierServiceOptions> = {}) {
  const writes: string[][] = [];
  const recording: Database = {
    ...db,
    query: (sql, params) => {
      if (sql.includes('INSERT INTO generation_tags')) writes.push([...new Set(params![0] as string[])]);
      return db.query(sql, params);
    },
  };
  const metrics = new Metrics();
  const svc = new ClassifierService(recording, {
    logger: createLogger('silent'),
    metrics,
    random: () => 0,
    clock: () => 0,
    preload: TS_LOADER,
    ...opts,
  });
  return { svc, writes, metrics };
}

const observe = (svc: ClassifierService, org: typeof a, generationId: string) =>
  svc.observe({
    generationId,
    orgId: org.orgId,
    workspaceId: org.workspaceId,
    input: 'my invoice',
    createdAt: new Date(),
  });

const isA = (id: string) => id.startsWith('a-');

test("A floods past its bound: B is still queued, its tags are in the first write with a small share of A's, and A's overflow is counted", async () => {
  const { svc, writes, metrics } = recordingService();
  for (let i = 0; i < 1500; i++) observe(svc, a, `a-${i}`);
  observe(svc, b, 'b-0');
  await svc.close();
  const aWritten = writes.flat().filter(isA).length;
  expect(writes.findIndex((w) => w.includes('b-0'))).toBe(0);
  expect(writes[0]!.filter(isA).length).toBeLessThan(aWritten / 2);
  expect(await metrics.registry.getSingleMetricAsString('switchyard_classifier_tagging_total')).toContain(
    `outcome="org_queue_full"} ${1500 - aWritten}`,
  );
  const tagged = await db.query<{ org_id: string; value: string }>(
    `SELECT org_id, value FROM generation_tags WHERE generation_id = 'b-0'`,
  );
  expect(tagged).toEqual([{ org_id: b.orgId, value: 'billing' }]);
});

test("A's backlog within its bound: B, queued last, is written before half of A's requests are", async () => {
  const { svc, writes } = recordingService();
  for (let i = 0; i < 60; i++) observe(svc, a, `a2-${i}`);
  observe(svc, b, 'b2-0');
  await svc.close();
  expect(writes.flat().filter((id) => id.startsWith('a2-'))).toHaveLength(60);
  const first = writes.findIndex((w) => w.includes('b2-0'));
  expect(
    writes
      .slice(0, first + 1)
      .flat()
      .filter((id) => id.startsWith('a2-')).length,
  ).toBeLessThan(30);
});

test('a batch that has taken flushMs of the clock is written at once: with every request taking that long, each is its own write', async () => {
  let now = 0;
  const { svc, writes } = recordingService({ clock: () => (now += 1000), flushMs: 1000 });
  for (let i = 0; i < 5; i++) observe(svc, a, `a3-${i}`);
  observe(svc, b, 'b3-0');
  await svc.close();
  expect(writes).toHaveLength(6);
  expect(writes.map((w) => w.length)).toEqual([1, 1, 1, 1, 1, 1]);
  expect(writes[1]).toEqual(['b3-0']);
});
