/**
 * Every bad analytics body is a 400 `Invalid request parameters` listing each problem in
 * `metadata.errors`, through HTTP on every database kind; plus the analytics routes' own per-key
 * rate limit (429 with the usual headers).
 */
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { loadConfig } from '../../src/config';

const WINDOW = { start: '2026-11-01T00:00:00Z', end: '2026-11-20T00:00:00Z' };
const M = ['request_count'];

describe.each(DATABASES)('analytics validation on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const query = (body: unknown, g: TestGateway = gw) =>
    request(g.app)
      .post('/api/v1/analytics/query')
      .set('Authorization', bearer(g.mgmtKey))
      .send(body as object);

  test.each<[string, unknown, string, RegExp]>([
    ['metrics missing', { dimensions: ['model'] }, 'body.metrics', /required/],
    ['metrics empty', { metrics: [] }, 'body.metrics', /fewer than 1/],
    ['unknown metric', { metrics: ['request_count', 'bogus'] }, 'body.metrics.1', /unknown metric "bogus"/],
    ['metric without a source here', { metrics: ['guardrail_invoked_count'] }, 'body.metrics.0', /not available here/],
    ['three dimensions', { metrics: M, dimensions: ['model', 'provider', 'app'] }, 'body.dimensions', /more than 2/],
    ['unknown dimension', { metrics: M, dimensions: ['planet'] }, 'body.dimensions.0', /unknown dimension/],
    [
      'dimension without a source here',
      { metrics: M, dimensions: ['country'] },
      'body.dimensions.0',
      /not available here/,
    ],
    [
      '21 filters',
      { metrics: M, filters: Array.from({ length: 21 }, () => ({ field: 'model', operator: 'eq', value: 'x' })) },
      'body.filters',
      /more than 20/,
    ],
    [
      'filter on an unknown field',
      { metrics: M, filters: [{ field: 'planet', operator: 'eq', value: 'x' }] },
      'body.filters.0.field',
      /unknown dimension/,
    ],
    [
      'unknown operator',
      { metrics: M, filters: [{ field: 'model', operator: 'like', value: 'x' }] },
      'body.filters.0.operator',
      /must be one of/,
    ],
    [
      'array for a scalar operator',
      { metrics: M, filters: [{ field: 'model', operator: 'eq', value: ['x'] }] },
      'body.filters.0.value',
      /string or number/,
    ],
    [
      'scalar for in',
      { metrics: M, filters: [{ field: 'model', operator: 'in', value: 'x' }] },
      'body.filters.0.value',
      /must be an array/,
    ],
    [
      'include_unset on eq',
      { metrics: M, filters: [{ field: 'provider', operator: 'eq', value: 'x', include_unset: true }] },
      'body.filters.0.include_unset',
      /in and not_in/,
    ],
    [
      'include_unset on a dimension that is always set',
      { metrics: M, filters: [{ field: 'model', operator: 'in', value: ['x'], include_unset: true }] },
      'body.filters.0.include_unset',
      /no unset value/,
    ],
    [
      'filter without value',
      { metrics: M, filters: [{ field: 'model', operator: 'eq' }] },
      'body.filters.0.value',
      /required/,
    ],
    ['unknown granularity', { metrics: M, granularity: 'year' }, 'body.granularity', /must be one of/],
    ['time_range without end', { metrics: M, time_range: { start: WINDOW.start } }, 'body.time_range.end', /required/],
    [
      'time_range without seconds',
      { metrics: M, time_range: { start: '2026-11-01T00:00Z', end: WINDOW.end } },
      'body.time_range.start',
      /must match/,
    ],
    [
      'time_range not UTC',
      { metrics: M, time_range: { start: '2026-11-01T00:00:00+02:00', end: WINDOW.end } },
      'body.time_range.start',
      /must match/,
    ],
    [
      'time_range not a date',
      { metrics: M, time_range: { start: '2026-13-01T00:00:00Z', end: WINDOW.end } },
      'body.time_range.start',
      /format/,
    ],
    [
      'start after end',
      { metrics: M, time_range: { start: WINDOW.end, end: WINDOW.start } },
      'body.time_range',
      /start must be before end/,
    ],
    [
      'start equal to end',
      { metrics: M, time_range: { start: WINDOW.end, end: WINDOW.end } },
      'body.time_range',
      /start must be before end/,
    ],
    [
      '366 days of a 365-day metric',
      { metrics: M, time_range: { start: '2025-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' } },
      'body.metrics.0',
      /at most 365 days/,
    ],
    [
      '32 days of a percentile',
      { metrics: ['p99_latency'], time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-02T00:00:00Z' } },
      'body.metrics.0',
      /at most 31 days/,
    ],
    [
      '32 days of a 31-day dimension',
      {
        metrics: M,
        dimensions: ['provider'],
        time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-02T00:00:00Z' },
      },
      'body.dimensions.0',
      /at most 31 days/,
    ],
    [
      '32 days filtered on a 31-day dimension',
      {
        metrics: M,
        filters: [{ field: 'provider', operator: 'eq', value: 'x' }],
        time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-02T00:00:00Z' },
      },
      'body.filters.0.field',
      /at most 31 days/,
    ],
    [
      'minute over more than 3 hours',
      { metrics: M, granularity: 'minute', time_range: { start: '2026-11-01T00:00:00Z', end: '2026-11-01T03:00:01Z' } },
      'body.granularity',
      /at most 3 hours/,
    ],
    ['limit 0', { metrics: M, limit: 0 }, 'body.limit', />= 1/],
    ['limit 10001', { metrics: M, limit: 10001 }, 'body.limit', /<= 10000/],
    ['limit not an integer', { metrics: M, limit: 1.5 }, 'body.limit', /integer/],
    ['group_limit 0', { metrics: M, group_limit: 0 }, 'body.group_limit', />= 1/],
    ['group_limit 10001', { metrics: M, group_limit: 10001 }, 'body.group_limit', /<= 10000/],
    [
      'order_by an unrequested metric',
      { metrics: M, order_by: { field: 'total_usage', direction: 'desc' } },
      'body.order_by.field',
      /requested metric/,
    ],
    [
      'order_by date without granularity',
      { metrics: M, order_by: { field: 'date', direction: 'desc' } },
      'body.order_by.field',
      /requested metric/,
    ],
    [
      'order_by without direction',
      { metrics: M, order_by: { field: 'request_count' } },
      'body.order_by.direction',
      /required/,
    ],
    [
      'order_by sideways',
      { metrics: M, order_by: { field: 'request_count', direction: 'up' } },
      'body.order_by.direction',
      /must be one of/,
    ],
    ['unknown field', { metrics: M, colour: 'red' }, 'body.colour', /not allowed/],
    ['metrics listed twice', { metrics: ['request_count', 'request_count'] }, 'body.metrics.1', /listed twice/],
    [
      'classifier_dimensions with a bad id',
      { metrics: M, classifier_dimensions: { classifier_id: 'nope' } },
      'body.classifier_dimensions.classifier_id',
      /format/,
    ],
    [
      'unknown classifier',
      { metrics: M, classifier_dimensions: { classifier_id: '00000000-0000-4000-8000-000000000000' } },
      'body.classifier_dimensions.classifier_id',
      /no active classifier/,
    ],
    [
      'classifier_filters without filters',
      { metrics: M, classifier_filters: { classifier_id: '00000000-0000-4000-8000-000000000000', filters: [] } },
      'body.classifier_filters.filters',
      /fewer than 1/,
    ],
    [
      'three classifier dimension names',
      {
        metrics: M,
        classifier_dimensions: {
          classifier_id: '00000000-0000-4000-8000-000000000000',
          dimension_names: ['a', 'b', 'c'],
        },
      },
      'body.classifier_dimensions.dimension_names',
      /more than 2/,
    ],
    ['body not an object', [1, 2], 'body', /object/],
  ])('%s → 400 naming the problem', async (_name, body, path, message) => {
    const res = await query(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(400);
    expect(res.body.error.message).toBe('Invalid request parameters');
    const errors = res.body.error.metadata.errors as Array<{ path: string; message: string }>;
    expect(errors).toContainEqual({ path, message: expect.stringMatching(message) });
  });

  test('every problem of a body is listed in one 400', async () => {
    const res = await query({
      metrics: ['bogus', 'p99_latency'],
      dimensions: ['planet', 'provider'],
      granularity: 'minute',
      time_range: { start: '2026-09-01T00:00:00Z', end: '2026-11-01T00:00:00Z' },
      order_by: { field: 'nothing', direction: 'asc' },
    }).expect(400);
    const paths = res.body.error.metadata.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(
      [
        'body.dimensions.0',
        'body.dimensions.1',
        'body.granularity',
        'body.metrics.0',
        'body.metrics.1',
        'body.order_by.field',
      ].sort(),
    );
  });

  test('the limits accepted at their bounds: 2 dimensions, 20 filters, limit 1 and 10000, 365 and 31 days, minute over 3 hours', async () => {
    await query({
      metrics: M,
      dimensions: ['model', 'provider'],
      filters: Array.from({ length: 20 }, () => ({ field: 'model', operator: 'neq', value: 'x' })),
      time_range: WINDOW,
    }).expect(200);
    await query({ metrics: M, limit: 1 }).expect(200);
    await query({ metrics: M, limit: 10000, group_limit: 10000 }).expect(200);
    await query({ metrics: M, time_range: { start: '2025-01-01T00:00:00Z', end: '2026-01-01T00:00:00Z' } }).expect(200);
    await query({
      metrics: ['p99_latency'],
      time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-01T00:00:00Z' },
    }).expect(200);
    await query({
      metrics: M,
      granularity: 'minute',
      time_range: { start: '2026-11-01T00:00:00Z', end: '2026-11-01T03:00:00Z' },
    }).expect(200);
  });
});

describe('analytics rate limit', () => {
  test('the analytics routes have their own per-key limit: over it → 429 with Retry-After and X-RateLimit-* headers', async () => {
    const db = await DATABASES[0]!.open();
    const kv = await KVS[0]!.open();
    try {
      const gw = await createTestGateway(db, kv, { analytics: { rateLimit: { windowMs: 60_000, limit: 3 } } });
      const meta = () => request(gw.app).get('/api/v1/analytics/meta').set('Authorization', bearer(gw.mgmtKey));
      for (let i = 0; i < 2; i++) expect((await meta()).status).toBe(200);
      await request(gw.app)
        .post('/api/v1/analytics/query')
        .set('Authorization', bearer(gw.mgmtKey))
        .send({ metrics: M })
        .expect(200);
      const refused = await meta();
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 429, message: 'Rate limit exceeded' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['x-ratelimit-limit']).toBe('3');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      // Other routes of the same key are not counted against it.
      await request(gw.app).get('/api/v1/workspaces').set('Authorization', bearer(gw.mgmtKey)).expect(200);
      // Defaults: 64 per minute.
      expect(loadConfig({}).analytics.rateLimit).toEqual({ windowMs: 60_000, limit: 64 });
    } finally {
      await kv.close();
      await db.close();
    }
  });
});
