/**
 * Property-based fuzzing of EVERY API route (issue 33 item 10), on each database kind: request
 * bodies and query strings generated from the route's own JSON Schema (`schemas/`), then mutated
 * (wrong types, huge arrays, deep nesting, `__proto__`/`constructor` keys, odd Unicode, huge
 * numbers; see test/helpers/fuzz/), with path parameters drawn from real and hostile values.
 * Property: never a 5xx, every error in the `{error:{code,message}}` envelope with code ==
 * status, the answer under a size bound; afterwards `/readyz` is green. Bounded in cases and time.
 *
 * Every route the app registers must have an entry in {@link FUZZ_ROUTES} (checked against
 * `app.locals.apiRoutes`): a new route is one line there, naming its key kind and its schemas.
 */
import fc from 'fast-check';
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { FAST_UPSTREAM } from '../fakes/gateway-harness';
import { arbitraryForId } from '../helpers/fuzz/schema-arbitrary';
import { HOSTILE_SEGMENTS, bodyTexts, queryTexts } from '../helpers/fuzz/mutations';
import type { ApiRoute, Method } from '../../src/http/router';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { isEnvelope } from '../helpers/envelope';

/** How to fuzz one route: the key kind it needs and the schema ids of what it reads. */
interface RouteFuzz {
  key: 'mgmt' | 'api';
  /** Schema id of the JSON body, or `multipart` for an upload. */
  body?: string;
  /** Schema id of the query string. */
  query?: string;
}

/** One line per route (`<method> <template>`); path parameters come from {@link paramArbitraries}. */
const FUZZ_ROUTES: Record<string, RouteFuzz> = {
  'post /api/v1/keys': { key: 'mgmt', body: 'keys.create.body' },
  'get /api/v1/keys': { key: 'mgmt', query: 'keys.list.query' },
  'get /api/v1/keys/:hash': { key: 'mgmt' },
  'patch /api/v1/keys/:hash': { key: 'mgmt', body: 'keys.update.body' },
  'delete /api/v1/keys/:hash': { key: 'mgmt' },
  'post /api/v1/keys/:hash/rotate': { key: 'mgmt' },
  'get /api/v1/key': { key: 'api' },
  'post /api/v1/workspaces': { key: 'mgmt', body: 'workspaces.create.body' },
  'get /api/v1/workspaces': { key: 'mgmt', query: 'workspaces.list.query' },
  'get /api/v1/workspaces/:id': { key: 'mgmt' },
  'patch /api/v1/workspaces/:id': { key: 'mgmt', body: 'workspaces.update.body' },
  'delete /api/v1/workspaces/:id': { key: 'mgmt', query: 'workspaces.delete.query' },
  'post /api/v1/workspaces/:id/members/add': { key: 'mgmt', body: 'members.change.body' },
  'post /api/v1/workspaces/:id/members/remove': { key: 'mgmt', body: 'members.change.body' },
  'get /api/v1/workspaces/:id/members': { key: 'mgmt', query: 'members.list.query' },
  'put /api/v1/workspaces/:id/budgets/:interval': { key: 'mgmt', body: 'budgets.upsert.body' },
  'get /api/v1/workspaces/:id/budgets/:interval': { key: 'mgmt' },
  'get /api/v1/workspaces/:id/budgets': { key: 'mgmt' },
  'delete /api/v1/workspaces/:id/budgets/:interval': { key: 'mgmt' },
  'post /api/v1/embeddings': { key: 'api', body: 'embeddings.create.body' },
  'post /api/v1/chat/completions': { key: 'api', body: 'chat.create.body' },
  'post /api/v1/responses': { key: 'api', body: 'responses.create.body' },
  'post /api/v1/messages': { key: 'api', body: 'messages.create.body' },
  'post /api/v1/messages/count_tokens': { key: 'api', body: 'messages.count_tokens.body' },
  'get /api/v1/embeddings/models': { key: 'api', query: 'embeddings.models.query' },
  'post /api/v1/files': { key: 'api', body: 'multipart', query: 'files.scope.query' },
  'get /api/v1/files': { key: 'api', query: 'files.list.query' },
  'get /api/v1/files/:file_id': { key: 'api', query: 'files.scope.query' },
  'get /api/v1/files/:file_id/content': { key: 'api', query: 'files.scope.query' },
  'delete /api/v1/files/:file_id': { key: 'api', query: 'files.scope.query' },
  'get /api/v1/generation': { key: 'api', query: 'generation.query' },
  'get /api/v1/models': { key: 'api', query: 'models.list.query' },
  'get /api/v1/models/:model': { key: 'api' },
  'get /api/v1/models/:author/:slug': { key: 'api' },
  'get /api/v1/models/:author/:slug/endpoints': { key: 'api' },
  'get /api/v1/providers': { key: 'api' },
  'get /api/v1/datasets/rankings-daily': { key: 'api', query: 'datasets.rankings.query' },
  'get /api/v1/analytics/meta': { key: 'mgmt' },
  'post /api/v1/analytics/query': { key: 'mgmt', body: 'analytics.query.body' },
  'post /api/v1/workspaces/:id/classifiers': { key: 'mgmt', body: 'classifiers.create.body' },
  'get /api/v1/workspaces/:id/classifiers': { key: 'mgmt' },
  'get /api/v1/workspaces/:id/classifiers/:classifier_id': { key: 'mgmt' },
  'patch /api/v1/workspaces/:id/classifiers/:classifier_id': { key: 'mgmt', body: 'classifiers.update.body' },
  'delete /api/v1/workspaces/:id/classifiers/:classifier_id': { key: 'mgmt' },
};

/**
 * Requests per route and database kind, and the time one route's run may take. Past the time
 * budget the remaining cases return without a request, but only once MIN_RUNS have really run:
 * on a busy CI machine a route's first request (one that starts the classifier thread, say) can
 * take longer than the whole budget, and fast-check's own time limit would then stop the run
 * before its first case. HARD_LIMIT_MS is that limit, kept under the test timeout as a backstop.
 */
const RUNS = 30;
const MIN_RUNS = 3;
const TIME_LIMIT_MS = 3000;
const HARD_LIMIT_MS = 20_000;
/** Largest answer allowed: errors stay small whatever the request; successes are lists at most. */
const MAX_ERROR_BYTES = 16 * 1024;
const MAX_SUCCESS_BYTES = 512 * 1024;

/** Multipart bodies: well-formed uploads with odd names and contents, and broken forms. */
function multipartBodies(): fc.Arbitrary<{ type: string; body: Buffer | string }> {
  const name = fc.constantFrom('file', 'file', 'other', '', '__proto__', 'fi\u0000le');
  const filename = fc.constantFrom(
    'a.txt',
    '',
    '../../etc/passwd',
    '😀.json',
    'x'.repeat(2000),
    'nul\u0000.txt',
    '\u202etxt.exe',
  );
  const content = fc.oneof(
    fc.constantFrom('hello\n', '', '{"a":1}\n', '%PDF-1.7\n', '\u0000\u0001\u0002', 'id,name\n1,a\n'),
    fc.string({ maxLength: 200 }),
  );
  const wellFormed = fc.tuple(name, filename, content).map(([n, f, c]) => ({
    type: 'multipart/form-data; boundary=fzb',
    body: Buffer.from(
      `--fzb\r\nContent-Disposition: form-data; name="${n}"; filename="${f}"\r\nContent-Type: text/plain\r\n\r\n${c}\r\n--fzb--\r\n`,
    ),
  }));
  const broken = fc.constantFrom(
    { type: 'multipart/form-data; boundary=fzb', body: Buffer.from('--fzb\r\nno headers\r\n') },
    { type: 'multipart/form-data', body: Buffer.from('--x\r\n\r\n') },
    {
      type: 'multipart/form-data; boundary=fzb',
      body: Buffer.from(
        `--fzb\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nA\r\n--fzb\r\nContent-Disposition: form-data; name="file"; filename="b"\r\n\r\nB\r\n--fzb--\r\n`,
      ),
    },
    { type: 'application/json', body: Buffer.from('{"file":"x"}') },
    { type: 'text/plain', body: Buffer.from('just text') },
  );
  return fc.oneof({ weight: 3, arbitrary: wellFormed }, { weight: 1, arbitrary: broken });
}

describe.each(DATABASES)('route fuzzing on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let fleet: FakeFleet;
  let gw: TestGateway;
  let apiKey: string;
  const real: Record<string, string[]> = {};
  const casesRun: Record<string, number> = {};

  beforeAll(async () => {
    db = await dbKind.open();
    kv = await KVS[0]!.open();
    fleet = await startFakeFleet();
    gw = await createTestGateway(db, kv, { providers: fleet.overrides.providers, upstream: FAST_UPSTREAM });
    apiKey = (await createInferenceKey(gw)).secret;
    const throwaway = await createInferenceKey(gw, { name: 'fuzz throwaway' });
    const ws = await request(gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ name: 'Fuzz', slug: 'fuzz-ws' });
    const file = await request(gw.app)
      .post('/api/v1/files')
      .set('Authorization', bearer(apiKey))
      .attach('file', Buffer.from('fuzz file\n'), 'fuzz.txt');
    real.hash = [throwaway.hash];
    real.id = ['default', 'fuzz-ws', ws.body.data.id, gw.defaultWorkspaceId];
    real.interval = ['daily', 'weekly', 'monthly', 'lifetime'];
    real.file_id = [file.body.id];
    real.author = ['openai', 'baai'];
    real.slug = ['text-embedding-3-small', 'bge-m3'];
    real.model = ['openai/gpt-4o', 'anthropic/claude-sonnet-4.5'];
    const classifier = await request(gw.app)
      .post(`/api/v1/workspaces/${gw.defaultWorkspaceId}/classifiers`)
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ name: 'fuzz', dimensions: [{ name: 'topic', rules: [{ value: 'v', keywords: ['k'] }] }] });
    real.classifier_id = [classifier.body.data?.id ?? classifier.body.id];
  });
  afterAll(async () => {
    const total = Object.values(casesRun).reduce((a, b) => a + b, 0);
    // The figure the report asks for.
    console.log(`route fuzzing on ${dbKind.name}: ${total} requests over ${Object.keys(casesRun).length} routes`);
    await gw.deps.routing.close();
    await fleet.closeAll();
    await kv.close();
    await db.close();
  });

  /** Values for each path parameter: real ones (to reach deeper than a 404) and hostile ones. */
  function paramArbitraries(name: string): fc.Arbitrary<string> {
    const known = real[name];
    if (!known) throw new Error(`no fuzz values for path parameter :${name}: add them to \`real\` in this file`);
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...known.map(encodeURIComponent)) },
      { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-f]{64}$/) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    );
  }

  test('every registered route has a generator', () => {
    const registered = (gw.app.locals.apiRoutes as ApiRoute[]).map((r) => `${r.method} ${r.template}`).sort();
    expect(Object.keys(FUZZ_ROUTES).sort()).toEqual(registered);
  });

  test.each(Object.entries(FUZZ_ROUTES))(
    '%s: never a 5xx, always the envelope, a bounded answer',
    async (route, fuzz) => {
      const [method, template] = route.split(' ') as [Method, string];
      const names = [...template.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1] as string);
      const params = fc.tuple(...names.map(paramArbitraries));
      const query = fuzz.query ? queryTexts(arbitraryForId(fuzz.query)) : fc.constant('');
      const body =
        fuzz.body === 'multipart'
          ? multipartBodies()
          : fuzz.body
            ? bodyTexts(arbitraryForId(fuzz.body)).map((text) => ({ type: 'application/json', body: text }))
            : fc.constant(null);
      const secret = fuzz.key === 'mgmt' ? gw.mgmtKey : apiKey;
      casesRun[route] = 0;
      const deadline = Date.now() + TIME_LIMIT_MS;

      await fc.assert(
        fc.asyncProperty(params, query, body, async (values, qs, payload) => {
          if ((casesRun[route] ?? 0) >= MIN_RUNS && Date.now() > deadline) return;
          casesRun[route] = (casesRun[route] ?? 0) + 1;
          let i = 0;
          const path = template.replace(/:([A-Za-z_]+)/g, () => values[i++] as string) + (qs ? `?${qs}` : '');
          let req = request(gw.app)[method](path).set('Authorization', bearer(secret));
          // JSON as a string: superagent would serialise a Buffer as `{"type":"Buffer",…}`.
          if (payload) req = req.set('Content-Type', payload.type).send(payload.body);
          const res = await req.buffer(true).parse((r, cb) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => cb(null, Buffer.concat(chunks)));
          });
          const raw = res.body as Buffer;
          const where = `${method.toUpperCase()} ${path.slice(0, 200)} body=${payload?.body.toString().slice(0, 200) ?? ''}`;
          const answer = `${res.status} ${raw.toString('utf8').slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`5xx: ${where} → ${answer}`);
          if (raw.length > (res.status >= 400 ? MAX_ERROR_BYTES : MAX_SUCCESS_BYTES))
            throw new Error(`answer of ${raw.length} bytes: ${where} → ${answer}`);
          const isDownload = res.status === 200 && template.endsWith('/content');
          if (!isDownload && !/^application\/json/.test(String(res.headers['content-type'])))
            throw new Error(`not JSON: ${where} → ${answer}`);
          if (res.status >= 400 && !isEnvelope(template, res.status, JSON.parse(raw.toString('utf8'))))
            throw new Error(`no envelope: ${where} → ${answer}`);
        }),
        { numRuns: RUNS, interruptAfterTimeLimit: HARD_LIMIT_MS, markInterruptAsFailure: false },
      );
      expect(casesRun[route]).toBeGreaterThanOrEqual(MIN_RUNS);
      await request(gw.app).get('/readyz').expect(200);
    },
  );

  test('the gateway is alive and ready after the fuzzing', async () => {
    await request(gw.app).get('/healthz').expect(200);
    await request(gw.app).get('/readyz').expect(200);
    await request(gw.app).get('/api/v1/embeddings/models').set('Authorization', bearer(apiKey)).expect(200);
  });
});
