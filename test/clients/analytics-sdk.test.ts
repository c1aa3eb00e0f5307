/**
 * The official `@openrouter/sdk` (ESM, in a child process) against a listening gateway:
 * `getAnalyticsMeta` and `queryAnalytics` with granularity, dimensions, filters, order, limits
 * and the classifier fields parse, and the rows (read from the raw body, since the SDK strips
 * them) hold what was recorded.
 */
import { openTestPglite, uniqueId } from '../helpers/services';
import { listenGateway, runClientScript, type ListeningGateway } from '../helpers/listening';
import { MemoryKv } from '../../src/kv/memory';
import { hashSecret } from '../../src/keys/secrets';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import { insertClassifier, insertTags } from '../../src/classifiers/repository';
import { event } from '../helpers/analytics-fixture';
import type { Database } from '../../src/store/db';

let gw: ListeningGateway;
let db: Database;
const CLASSIFIER = '11111111-2222-4333-8444-555555555555';

beforeAll(async () => {
  db = await openTestPglite();
  gw = await listenGateway(db, new MemoryKv(`t:${uniqueId()}:`));
  const [key] = await db.query<{ org_id: string; workspace_id: string }>(
    'SELECT org_id, workspace_id FROM api_keys WHERE hash = $1',
    [hashSecret(gw.mgmtKey)],
  );
  const { org_id: org, workspace_id: ws } = key!;
  const events = [
    event(org, ws, 'a'.repeat(64), '2026-11-10T10:00:00Z', { model: 'm1', costUsd: 0.5 }),
    event(org, ws, 'a'.repeat(64), '2026-11-10T11:00:00Z', { model: 'm1', costUsd: 0.25 }),
    event(org, ws, 'a'.repeat(64), '2026-11-11T10:00:00Z', { model: 'm2', costUsd: 1 }),
    event(org, ws, 'a'.repeat(64), '2026-11-11T10:00:00Z', { model: 'm3', costUsd: 1 }),
  ];
  await insertUsageEvents(db, events);
  await insertClassifier(db, {
    id: CLASSIFIER,
    orgId: org,
    workspaceId: ws,
    name: 'Support',
    active: true,
    sampleRate: 1,
    dimensions: [{ name: 'topic', rules: [{ value: 'billing', keywords: ['invoice'] }] }],
  });
  await insertTags(
    db,
    events.slice(0, 3).map((e, i) => ({
      generationId: e.id,
      classifierId: CLASSIFIER,
      dimension: 'topic',
      orgId: org,
      value: i === 2 ? null : 'billing',
      createdAt: e.createdAt,
    })),
  );
});
afterAll(() => gw.server.shutdown('test'));

test('analytics.getAnalyticsMeta and analytics.queryAnalytics (granularity, dimensions, filters, classifier fields)', async () => {
  const r = await runClientScript<Record<string, Record<string, unknown>>>('analytics-sdk.mjs', [
    gw.baseUrl,
    gw.mgmtKey,
    CLASSIFIER,
  ]);
  expect(r.fatal).toBeUndefined();
  expect(r.meta!.metrics).toEqual(expect.arrayContaining(['request_count', 'total_usage', 'p99_latency']));
  expect(r.meta!.first).toEqual({
    name: 'request_count',
    displayLabel: 'Request Count',
    isRate: false,
    displayFormat: 'number',
  });
  expect(r.meta!.dimensions).toContain('model');
  expect(r.meta!.operators).toBe(8);
  expect(r.meta!.granularities).toEqual(['minute', 'hour', 'day', 'week', 'month']);
  expect(r.daily).toEqual({
    parsed: { rows: 2, metadata: { queryTimeMs: expect.any(Number), rowCount: 2, truncated: false } },
    raw: [
      { date__day: '2026-11-10T00:00:00.000Z', model: 'm1', request_count: 2, total_usage: 0.75 },
      { date__day: '2026-11-11T00:00:00.000Z', model: 'm2', request_count: 1, total_usage: 1 },
    ],
  });
  expect(r.tagged).toEqual({
    metadata: { queryTimeMs: expect.any(Number), rowCount: 1, truncated: false },
    raw: [{ topic: 'billing', request_count: 2 }],
  });
  expect(r.invalid).toMatchObject({ name: 'BadRequestResponseError', status: 400 });
});
