/**
 * Workspace classifiers end to end through HTTP on every database kind: the management API
 * (create by UUID or slug, list, get, patch, delete; regex safety; limits; organization scope),
 * tagging of real embeddings traffic after the answer (sampled, text input only), and the
 * analytics query's classifier_dimensions (0, 1 or 2 names, include_nulls) and classifier_filters.
 */
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { FAST_UPSTREAM } from '../fakes/gateway-harness';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOW = Date.UTC(2026, 10, 10, 12);
const WINDOW = { start: '2026-11-10T00:00:00Z', end: '2026-11-11T00:00:00Z' };
const SMALL = 'openai/text-embedding-3-small';

const DIMENSIONS = [
  {
    name: 'topic',
    rules: [
      { value: 'billing', keywords: ['invoice', 'refund'] },
      { value: 'tech', patterns: ['\\berror\\s+\\d+'] },
    ],
  },
  { name: 'lang', rules: [{ value: 'fr', keywords: ['bonjour'] }] },
];

/** Issue #43: alternation under a star, exponential for a backtracking engine on "aaaa…!", linear for RE2 (and `(a+)+$`, nested). */
const STAR_PATTERNS = [
  '^(a|a)*$',
  '^(a|aa)*$',
  '^(\\w|\\d)*!$',
  '(?:a|a)*c',
  '((a)|(a))*$',
  '^(a|ab|abc)*d$',
  '(a|b|ab)*c$',
  '(a+)+$',
];
/** Linear but costly: 50 never-matching patterns that each step a large program along the whole text, far past 250 ms in all. */
const SLOW_PATTERNS = Array.from({ length: 50 }, (_, i) => `\\p{L}{1000}${i}`);

describe.each(DATABASES)('classifiers on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let fleet: FakeFleet;
  let gw: TestGateway;
  let other: TestGateway;
  let key: string;
  let clf: string;

  beforeAll(async () => {
    db = await dbKind.open();
    kv = await KVS[0]!.open();
    fleet = await startFakeFleet();
    const overrides = { providers: fleet.overrides.providers, upstream: FAST_UPSTREAM };
    gw = await createTestGateway(db, kv, overrides, () => NOW);
    other = await createTestGateway(db, kv, overrides, () => NOW);
    key = (await createInferenceKey(gw, { name: 'traffic' })).secret;
  });
  afterAll(async () => {
    await gw.deps.classifiers.close();
    await other.deps.classifiers.close();
    await gw.deps.routing.close();
    await other.deps.routing.close();
    await fleet.closeAll();
    await gw.deps.recorder.close();
    await other.deps.recorder.close();
    await kv.close();
    await db.close();
  });

  const mgmt = (method: 'get' | 'post' | 'patch' | 'delete', path: string, g: TestGateway = gw) =>
    request(g.app)[method](`/api/v1${path}`).set('Authorization', bearer(g.mgmtKey));
  const query = (body: object, g: TestGateway = gw) =>
    mgmt('post', '/analytics/query', g).send({ time_range: WINDOW, ...body });
  const embed = (input: unknown) =>
    request(gw.app).post('/api/v1/embeddings').set('Authorization', bearer(key)).send({ model: SMALL, input });

  test('create → 201 with the classifier; list, get, patch, delete; by workspace UUID or slug', async () => {
    const ws = (await mgmt('post', '/workspaces').send({ name: 'Side', slug: 'side' }).expect(201)).body.data.id;
    const created = await mgmt('post', '/workspaces/side/classifiers').send({
      name: 'Side topics',
      sample_rate: 0.5,
      dimensions: DIMENSIONS,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(UUID),
      workspace_id: ws,
      name: 'Side topics',
      active: true,
      sample_rate: 0.5,
      dimensions: DIMENSIONS,
      created_at: expect.any(String),
      updated_at: null,
    });
    const id = created.body.data.id;
    expect(
      (await mgmt('get', `/workspaces/${ws}/classifiers`).expect(200)).body.data.map((c: { id: string }) => c.id),
    ).toEqual([id]);
    expect((await mgmt('get', `/workspaces/side/classifiers/${id}`).expect(200)).body.data.name).toBe('Side topics');
    const patched = await mgmt('patch', `/workspaces/side/classifiers/${id}`)
      .send({ active: false, name: 'Renamed' })
      .expect(200);
    expect(patched.body.data).toMatchObject({
      id,
      active: false,
      name: 'Renamed',
      sample_rate: 0.5,
      updated_at: expect.any(String),
    });
    expect((await mgmt('delete', `/workspaces/side/classifiers/${id}`).expect(200)).body).toEqual({ deleted: true });
    await mgmt('get', `/workspaces/side/classifiers/${id}`).expect(404);
    await mgmt('delete', `/workspaces/side/classifiers/${id}`).expect(404);
  });

  test('deleting a workspace deletes its classifiers', async () => {
    await mgmt('post', '/workspaces').send({ name: 'Doomed', slug: 'doomed' }).expect(201);
    const id = (
      await mgmt('post', '/workspaces/doomed/classifiers').send({ name: 'C', dimensions: DIMENSIONS }).expect(201)
    ).body.data.id;
    await mgmt('delete', '/workspaces/doomed').expect(200);
    expect(await db.query('SELECT id FROM classifiers WHERE id = $1', [id])).toEqual([]);
    const res = await query({ metrics: ['request_count'], classifier_dimensions: { classifier_id: id } }).expect(400);
    expect(res.body.error.metadata.errors[0].path).toBe('body.classifier_dimensions.classifier_id');
  });

  test('refused: constructs a linear-time (RE2) matcher cannot run, named; invalid or overlong patterns, duplicate names, empty rules, too many dimensions', async () => {
    const bad = async (dimensions: unknown, path: string, message: RegExp) => {
      const res = await mgmt('post', '/workspaces/default/classifiers').send({ name: 'x', dimensions });
      if (res.status === 404) throw new Error('default workspace slug');
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Invalid request parameters');
      expect(res.body.error.metadata.errors).toContainEqual({ path, message: expect.stringMatching(message) });
    };
    const one = (rule: object) => [{ name: 'd', rules: [rule] }];
    const construct = async (pattern: string, name: RegExp) =>
      bad(one({ value: 'v', patterns: ['ok', pattern] }), 'body.dimensions.0.rules.0.patterns.1', name);
    await construct('(a)\\1', /backreference/);
    await construct('(?<w>a)\\k<w>', /named backreference/);
    await construct('(?=a)b', /lookahead/);
    await construct('a(?!b)', /negative lookahead/);
    await construct('(?<=a)b', /lookbehind/);
    await construct('(?<!a)b', /negative lookbehind/);
    await construct('a++b', /possessive quantifier/);
    await construct('(?>a|ab)c', /atomic group/);
    await bad(
      one({ value: 'v', patterns: ['([a-z'] }),
      'body.dimensions.0.rules.0.patterns.0',
      /not a valid regular expression/,
    );
    await bad(one({ value: 'v', patterns: ['a'.repeat(201)] }), 'body.dimensions.0.rules.0.patterns.0', /at most 200/);
    await bad(one({ value: 'v' }), 'body.dimensions.0.rules.0', /at least one keyword or pattern/);
    await bad(
      [
        { name: 'd', rules: [{ value: 'v', keywords: ['k'] }] },
        { name: 'd', rules: [{ value: 'w', keywords: ['k'] }] },
      ],
      'body.dimensions.1.name',
      /twice/,
    );
    await bad(
      Array.from({ length: 11 }, (_, i) => ({ name: `d${i}`, rules: [{ value: 'v', keywords: ['k'] }] })),
      'body.dimensions',
      /more than 10/,
    );
    await bad([{ name: 'Bad Name', rules: [{ value: 'v', keywords: ['k'] }] }], 'body.dimensions.0.name', /must match/);
  });

  test('organization scope: another organization cannot see, change or query a classifier; a non-management key gets 403', async () => {
    const id = (
      await mgmt('post', '/workspaces/default/classifiers').send({ name: 'Mine', dimensions: DIMENSIONS }).expect(201)
    ).body.data.id;
    await mgmt('get', `/workspaces/${gw.defaultWorkspaceId}/classifiers/${id}`, other).expect(404);
    await mgmt('get', `/workspaces/${other.defaultWorkspaceId}/classifiers/${id}`, other).expect(404);
    await mgmt('patch', `/workspaces/${other.defaultWorkspaceId}/classifiers/${id}`, other)
      .send({ active: false })
      .expect(404);
    await mgmt('delete', `/workspaces/${other.defaultWorkspaceId}/classifiers/${id}`, other).expect(404);
    const foreign = await query(
      { metrics: ['request_count'], classifier_dimensions: { classifier_id: id } },
      other,
    ).expect(400);
    expect(foreign.body.error.metadata.errors).toContainEqual({
      path: 'body.classifier_dimensions.classifier_id',
      message: expect.stringMatching(/no active classifier/),
    });
    const res = await request(gw.app).get(`/api/v1/workspaces/default/classifiers`).set('Authorization', bearer(key));
    expect(res.status).toBe(403);
    await mgmt('delete', `/workspaces/default/classifiers/${id}`).expect(200);
  });

  test('issue #43 patterns (alternation under a star) are accepted and tag an 8 KB "aaaa…!" input correctly, none stopped at the deadline', async () => {
    const ws = (await mgmt('post', '/workspaces').send({ name: 'Stars', slug: 'stars' }).expect(201)).body.data.id;
    const starsKey = (await createInferenceKey(gw, { name: 'stars traffic', workspace_id: ws })).secret;
    const ids: string[] = [];
    for (const pattern of STAR_PATTERNS) {
      const res = await mgmt('post', '/workspaces/stars/classifiers').send({
        name: pattern,
        dimensions: [{ name: 'shape', rules: [{ value: 'matched', patterns: [pattern] }] }],
      });
      expect([pattern, res.status]).toEqual([pattern, 201]);
      ids.push(res.body.data.id);
    }
    const text = `${'a'.repeat(8191)}!`;
    expect(
      (
        await request(gw.app)
          .post('/api/v1/embeddings')
          .set('Authorization', bearer(starsKey))
          .send({ model: SMALL, input: text })
      ).status,
    ).toBe(200);
    await gw.deps.classifiers.idle();
    const rows = await db.query<{ classifier_id: string; value: string | null }>(
      'SELECT classifier_id, value FROM generation_tags WHERE classifier_id = ANY($1::uuid[])',
      [ids],
    );
    const got = new Map(rows.map((r) => [r.classifier_id, r.value]));
    // The oracle: the backtracking engine on a text short enough for it (these patterns match "aaaa!" as they match the 8 KB text).
    const expected = STAR_PATTERNS.map((p) => [p, new RegExp(p, 'iu').test('aaaa!') ? 'matched' : null]);
    expect(new Set(expected.map(([, v]) => v))).toEqual(new Set(['matched', null]));
    expect(STAR_PATTERNS.map((p, i) => [p, got.has(ids[i]!) ? got.get(ids[i]!) : 'untagged'])).toEqual(expected);
  });

  test('a classifier whose (linear) matching outlasts the deadline is stopped; other classifiers still tag the request', async () => {
    const ws = (await mgmt('post', '/workspaces').send({ name: 'Slow', slug: 'slow' }).expect(201)).body.data.id;
    const slowKey = (await createInferenceKey(gw, { name: 'slow traffic', workspace_id: ws })).secret;
    const slow = (
      await mgmt('post', '/workspaces/slow/classifiers')
        .send({ name: 'Slow', dimensions: [{ name: 'shape', rules: [{ value: 'as', patterns: SLOW_PATTERNS }] }] })
        .expect(201)
    ).body.data.id;
    const fine = (
      await mgmt('post', '/workspaces/slow/classifiers')
        .send({ name: 'Fine', dimensions: [{ name: 'mark', rules: [{ value: 'bang', keywords: ['!'] }] }] })
        .expect(201)
    ).body.data.id;
    const res = await request(gw.app)
      .post('/api/v1/embeddings')
      .set('Authorization', bearer(slowKey))
      .send({ model: SMALL, input: `${'a'.repeat(8191)}!` });
    expect(res.status).toBe(200);
    await gw.deps.classifiers.idle();
    const tags = await db.query<{ classifier_id: string; value: string | null }>(
      'SELECT classifier_id, value FROM generation_tags WHERE classifier_id IN ($1, $2)',
      [slow, fine],
    );
    expect(tags).toEqual([{ classifier_id: fine, value: 'bang' }]);
    expect(await gw.deps.metrics.registry.getSingleMetricAsString('switchyard_classifier_tagging_total')).toMatch(
      /outcome="timeout"} 1/,
    );
  });

  describe('tagging real traffic and querying by tag', () => {
    beforeAll(async () => {
      clf = (
        await mgmt('post', '/workspaces/default/classifiers')
          .send({ name: 'Support', dimensions: DIMENSIONS })
          .expect(201)
      ).body.data.id;
      // Never sampled: its tags never appear.
      await mgmt('post', '/workspaces/default/classifiers')
        .send({
          name: 'Never',
          sample_rate: 0,
          dimensions: [{ name: 'never', rules: [{ value: 'x', keywords: ['e'] }] }],
        })
        .expect(201);
      for (const input of ['please REFUND my invoice', 'got error 42, bonjour', ['hello', 'there'], [1, 2, 3]]) {
        expect((await embed(input)).status).toBe(200);
      }
      await gw.deps.recorder.flush();
      await gw.deps.classifiers.idle();
    });

    test('one name: a column named after it; include_nulls adds the untagged rows', async () => {
      const res = await query({
        metrics: ['request_count'],
        classifier_dimensions: { classifier_id: clf, dimension_names: ['topic'] },
        order_by: { field: 'topic', direction: 'asc' },
      }).expect(200);
      expect(res.body.data.data).toEqual([
        { topic: 'billing', request_count: 1 },
        { topic: 'tech', request_count: 1 },
      ]);
      const nulls = await query({
        metrics: ['request_count'],
        classifier_dimensions: { classifier_id: clf, dimension_names: ['topic'], include_nulls: true },
        order_by: { field: 'topic', direction: 'asc' },
      }).expect(200);
      // Token-id input has no text: not tagged at all.
      expect(nulls.body.data.data).toEqual([
        { topic: 'billing', request_count: 1 },
        { topic: 'tech', request_count: 1 },
        { topic: null, request_count: 1 },
      ]);
    });

    test('two names cross-grouped, with a standard dimension', async () => {
      const res = await query({
        metrics: ['request_count'],
        dimensions: ['model'],
        classifier_dimensions: { classifier_id: clf, dimension_names: ['topic', 'lang'] },
      }).expect(200);
      expect(res.body.data.data).toEqual([{ model: SMALL, topic: 'tech', lang: 'fr', request_count: 1 }]);
    });

    test('no names: clf_dimension_name / clf_dimension_value, one row per pair', async () => {
      const res = await query({
        metrics: ['request_count'],
        classifier_dimensions: { classifier_id: clf },
        order_by: { field: 'clf_dimension_value', direction: 'asc' },
      }).expect(200);
      expect(res.body.data.data).toEqual([
        { clf_dimension_name: 'topic', clf_dimension_value: 'billing', request_count: 1 },
        { clf_dimension_name: 'lang', clf_dimension_value: 'fr', request_count: 1 },
        { clf_dimension_name: 'topic', clf_dimension_value: 'tech', request_count: 1 },
      ]);
    });

    test('classifier_filters alone (with standard dimensions) or with classifier_dimensions of the same classifier', async () => {
      const tech = await query({
        metrics: ['request_count', 'tokens_prompt'],
        dimensions: ['model'],
        classifier_filters: { classifier_id: clf, filters: [{ field: 'topic', operator: 'eq', value: 'tech' }] },
      }).expect(200);
      expect(tech.body.data.data).toEqual([{ model: SMALL, request_count: 1, tokens_prompt: expect.any(Number) }]);
      const notBilling = await query({
        metrics: ['request_count'],
        classifier_filters: {
          classifier_id: clf,
          filters: [{ field: 'topic', operator: 'not_in', value: ['billing'] }],
        },
      }).expect(200);
      expect(notBilling.body.data.data).toEqual([{ request_count: 1 }]);
      const either = await query({
        metrics: ['request_count'],
        classifier_filters: {
          classifier_id: clf,
          filters: [
            { field: 'topic', operator: 'in', value: ['billing', 'tech'] },
            { field: 'lang', operator: 'neq', value: 'en' },
          ],
        },
      }).expect(200);
      expect(either.body.data.data).toEqual([{ request_count: 1 }]);
      const both = await query({
        metrics: ['request_count'],
        classifier_dimensions: { classifier_id: clf, dimension_names: ['lang'] },
        classifier_filters: {
          classifier_id: clf.toUpperCase(),
          filters: [{ field: 'topic', operator: 'eq', value: 'tech' }],
        },
      }).expect(200);
      expect(both.body.data.data).toEqual([{ lang: 'fr', request_count: 1 }]);
    });

    test('400: different classifier ids, unknown tag dimension, an inactive classifier, more than 31 days', async () => {
      const errorsOf = async (body: object) => (await query(body).expect(400)).body.error.metadata.errors;
      expect(
        await errorsOf({
          metrics: ['request_count'],
          classifier_dimensions: { classifier_id: clf },
          classifier_filters: {
            classifier_id: '00000000-0000-4000-8000-000000000000',
            filters: [{ field: 'topic', operator: 'eq', value: 'x' }],
          },
        }),
      ).toContainEqual({ path: 'body.classifier_filters.classifier_id', message: expect.stringMatching(/must equal/) });
      expect(
        await errorsOf({
          metrics: ['request_count'],
          classifier_dimensions: { classifier_id: clf, dimension_names: ['colour'] },
        }),
      ).toContainEqual({
        path: 'body.classifier_dimensions.dimension_names.0',
        message: expect.stringMatching(/no dimension "colour"/),
      });
      expect(
        await errorsOf({
          metrics: ['request_count'],
          classifier_filters: { classifier_id: clf, filters: [{ field: 'colour', operator: 'eq', value: 'x' }] },
        }),
      ).toContainEqual({
        path: 'body.classifier_filters.filters.0.field',
        message: expect.stringMatching(/no dimension/),
      });
      expect(
        await errorsOf({
          metrics: ['request_count'],
          classifier_filters: { classifier_id: clf, filters: [{ field: 'topic', operator: 'in', value: 'x' }] },
        }),
      ).toContainEqual({ path: 'body.classifier_filters.filters.0.value', message: expect.stringMatching(/array/) });
      expect(
        await errorsOf({
          metrics: ['request_count'],
          time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-02T00:00:00Z' },
          classifier_dimensions: { classifier_id: clf },
        }),
      ).toContainEqual({
        path: 'body.classifier_dimensions.classifier_id',
        message: expect.stringMatching(/at most 31 days/),
      });
      expect(
        await errorsOf({
          metrics: ['request_count'],
          dimensions: ['model'],
          classifier_dimensions: { classifier_id: clf, dimension_names: ['topic'] },
          order_by: { field: 'lang', direction: 'asc' },
        }),
      ).toContainEqual({ path: 'body.order_by.field', message: expect.any(String) });
      await mgmt('patch', `/workspaces/default/classifiers/${clf}`).send({ active: false }).expect(200);
      expect(
        await errorsOf({ metrics: ['request_count'], classifier_dimensions: { classifier_id: clf } }),
      ).toContainEqual({
        path: 'body.classifier_dimensions.classifier_id',
        message: expect.stringMatching(/no active classifier/),
      });
      await mgmt('patch', `/workspaces/default/classifiers/${clf}`).send({ active: true }).expect(200);
    });

    test('tags are stored keyed by the generation id of the usage record', async () => {
      const tags = await db.query<{ generation_id: string; dimension: string; value: string | null }>(
        `SELECT t.generation_id, t.dimension, t.value FROM generation_tags t JOIN generations g ON g.id = t.generation_id WHERE t.classifier_id = $1 ORDER BY t.value`,
        [clf],
      );
      expect(tags).toHaveLength(6);
      expect(new Set(tags.map((t) => t.generation_id)).size).toBe(3);
    });
  });
});
