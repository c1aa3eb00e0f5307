/**
 * A hostile-input sweep over EVERY route the app registers (checked against
 * `app.locals.apiRoutes`, so a new route without an entry here fails this file). Each route gets,
 * with the right kind of key: malformed JSON, an oversized body, and — where it reads them —
 * wrong body types, hostile field values (NUL, lone surrogates, 1e400, -1e308, objects, deep
 * arrays), hostile query values (arrays, non-numbers, huge numbers, NUL, over-long strings) and
 * absurd path parameters. Every answer must be a 4xx with the `{error:{code,message}}` envelope
 * where code == status (Anthropic's `{type:"error",error:{type,message}}` on the Messages paths); never 2xx, never 5xx. Bodies are otherwise valid, so a hostile value
 * that slips through validation shows up (as a 2xx or a 5xx); resources named in paths mostly do
 * not exist, and the embeddings model is unknown, so nothing can reach an upstream.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, openTestGateway, type TestGateway } from '../helpers/gateway';
import type { ApiRoute, Method } from '../../src/http/router';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { isEnvelope } from '../helpers/envelope';

const BODY_LIMIT = 16384;

type QueryKind = 'int' | 'bool' | 'uuid' | 'ref' | 'string' | 'enum';

interface RouteCase {
  method: Method;
  template: string;
  key: 'mgmt' | 'api';
  /** Path parameters other than {@link PARAM_DEFAULTS}, to reach deeper than a 404. */
  params?: Record<string, string>;
  /** Query parameters the route reads, by kind. */
  query?: Record<string, QueryKind>;
  /** JSON body the route reads: a valid base and the fields (dotted paths) to attack. */
  body?: { base: Record<string, unknown>; fields: string[]; extra?: Array<[string, string]> };
}

/** Path parameter values naming nothing (so a request that passes validation answers 404). */
const PARAM_DEFAULTS: Record<string, string> = {
  hash: 'c'.repeat(64),
  id: 'no-such-workspace',
  interval: 'daily',
  file_id: 'file-does-not-exist',
  author: 'nobody',
  slug: 'no-such-model',
};

const ROUTES: RouteCase[] = [
  {
    method: 'post',
    template: '/api/v1/keys',
    key: 'mgmt',
    body: {
      base: { name: 'hostile' },
      fields: [
        'name',
        'limit',
        'limit_reset',
        'include_byok_in_limit',
        'expires_at',
        'workspace_id',
        'creator_user_id',
        'external',
      ],
      extra: [
        ['expires_at', '"2099-12-31T23:59:60Z"'],
        ['expires_at', '"yesterday"'],
        ['limit', '1e309'],
      ],
    },
  },
  {
    method: 'get',
    template: '/api/v1/keys',
    key: 'mgmt',
    query: { include_disabled: 'bool', offset: 'int', limit: 'int', workspace_id: 'ref' },
  },
  { method: 'get', template: '/api/v1/keys/:hash', key: 'mgmt' },
  {
    method: 'patch',
    template: '/api/v1/keys/:hash',
    key: 'mgmt',
    body: { base: { name: 'renamed' }, fields: ['name', 'disabled', 'limit', 'limit_reset', 'include_byok_in_limit'] },
  },
  { method: 'delete', template: '/api/v1/keys/:hash', key: 'mgmt' },
  { method: 'post', template: '/api/v1/keys/:hash/rotate', key: 'mgmt' },
  { method: 'get', template: '/api/v1/key', key: 'api' },
  {
    method: 'post',
    template: '/api/v1/workspaces',
    key: 'mgmt',
    body: {
      base: { name: 'Hostile', slug: 'hostile-ws', io_logging_api_key_ids: [1], disabled_server_tools: ['web_search'] },
      fields: [
        'name',
        'slug',
        'description',
        'default_text_model',
        'default_image_model',
        'default_provider_sort',
        'io_logging_api_key_ids',
        'io_logging_api_key_ids.0',
        'io_logging_sampling_rate',
        'is_observability_io_logging_enabled',
        'is_observability_broadcast_enabled',
        'is_data_discount_logging_enabled',
        'disabled_server_tools',
        'disabled_server_tools.0',
      ],
    },
  },
  {
    method: 'get',
    template: '/api/v1/workspaces',
    key: 'mgmt',
    query: { offset: 'int', limit: 'int', include: 'string' },
  },
  { method: 'get', template: '/api/v1/workspaces/:id', key: 'mgmt' },
  {
    method: 'patch',
    template: '/api/v1/workspaces/:id',
    key: 'mgmt',
    body: {
      base: { name: 'Renamed', io_logging_api_key_ids: [1], disabled_server_tools: ['web_search'] },
      fields: [
        'name',
        'slug',
        'description',
        'default_provider_sort',
        'io_logging_api_key_ids.0',
        'io_logging_sampling_rate',
        'disabled_server_tools.0',
      ],
    },
  },
  {
    method: 'delete',
    template: '/api/v1/workspaces/:id',
    key: 'mgmt',
    query: { confirm_default_workspace_deletion: 'bool' },
  },
  {
    method: 'post',
    template: '/api/v1/workspaces/:id/members/add',
    key: 'mgmt',
    params: { id: 'default' },
    body: { base: { user_ids: ['user_hostile'] }, fields: ['user_ids', 'user_ids.0'] },
  },
  {
    method: 'post',
    template: '/api/v1/workspaces/:id/members/remove',
    key: 'mgmt',
    params: { id: 'default' },
    body: { base: { user_ids: ['user_hostile'] }, fields: ['user_ids', 'user_ids.0'] },
  },
  { method: 'get', template: '/api/v1/workspaces/:id/members', key: 'mgmt', query: { offset: 'int', limit: 'int' } },
  {
    method: 'put',
    template: '/api/v1/workspaces/:id/budgets/:interval',
    key: 'mgmt',
    body: { base: { limit_usd: 10 }, fields: ['limit_usd', 'include_byok_in_budgets'], extra: [['limit_usd', '0']] },
  },
  { method: 'get', template: '/api/v1/workspaces/:id/budgets/:interval', key: 'mgmt' },
  { method: 'get', template: '/api/v1/workspaces/:id/budgets', key: 'mgmt' },
  { method: 'delete', template: '/api/v1/workspaces/:id/budgets/:interval', key: 'mgmt' },
  {
    method: 'post',
    template: '/api/v1/embeddings',
    key: 'api',
    body: {
      base: {
        model: 'switchyard-test/no-such-model',
        input: ['hello'],
        provider: { allow_fallbacks: true, order: ['nowhere'] },
      },
      fields: [
        'model',
        'input',
        'input.0',
        'dimensions',
        'encoding_format',
        'input_type',
        'user',
        'session_id',
        'provider',
        'provider.allow_fallbacks',
        'provider.order',
        'provider.order.0',
      ],
      extra: [
        ['dimensions', '0'],
        ['dimensions', '1.5'],
      ],
    },
  },
  { method: 'get', template: '/api/v1/embeddings/models', key: 'api', query: { offset: 'int', limit: 'int' } },
  {
    method: 'post',
    template: '/api/v1/chat/completions',
    key: 'api',
    body: {
      base: {
        model: 'switchyard-test/no-such-model',
        messages: [{ role: 'user', content: 'hello' }],
        provider: { order: ['nowhere'] },
      },
      fields: [
        'model',
        'models',
        'messages',
        'messages.0',
        'messages.0.content',
        'messages.0.role',
        'stream',
        'max_tokens',
        'temperature',
        'tools',
        'tool_choice',
        'response_format',
        'stop',
        'provider',
        'provider.order',
      ],
      extra: [
        ['max_tokens', '0'],
        ['temperature', '3'],
      ],
    },
  },
  {
    method: 'post',
    template: '/api/v1/responses',
    key: 'api',
    body: {
      base: { model: 'switchyard-test/no-such-model', input: 'hello', provider: { order: ['nowhere'] } },
      fields: [
        'model',
        'models',
        'input',
        'instructions',
        'tools',
        'tool_choice',
        'text',
        'text.format',
        'reasoning',
        'reasoning.effort',
        'max_output_tokens',
        'temperature',
        'stream',
        'store',
        'previous_response_id',
        'background',
        'provider',
      ],
      extra: [
        ['max_output_tokens', '0'],
        ['input', '[{"type":"function_call"}]'],
        ['tools', '[{"type":"custom"}]'],
        ['tools', '[{"type":"namespace","name":"n","tools":[{"type":"web_search"}]}]'],
      ],
    },
  },
  {
    method: 'post',
    template: '/api/v1/messages',
    key: 'api',
    body: {
      base: {
        model: 'switchyard-test/no-such-model',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hello' }],
        provider: { order: ['nowhere'] },
      },
      fields: [
        'model',
        'models',
        'messages',
        'messages.0',
        'messages.0.content',
        'messages.0.role',
        'system',
        'max_tokens',
        'stream',
        'temperature',
        'top_k',
        'tools',
        'tool_choice',
        'thinking',
        'metadata',
        'stop_sequences',
        'provider',
      ],
      extra: [
        ['max_tokens', '0'],
        ['temperature', '3'],
        ['messages.0.content', '[{"type":"text"}]'],
        ['messages.0.content', '[{"text":"no type"}]'],
      ],
    },
  },
  {
    method: 'post',
    template: '/api/v1/messages/count_tokens',
    key: 'api',
    body: {
      base: { model: 'switchyard-test/no-such-model', messages: [{ role: 'user', content: 'hello' }] },
      fields: ['model', 'messages', 'messages.0', 'messages.0.content', 'system', 'tools'],
    },
  },
  { method: 'post', template: '/api/v1/files', key: 'api', query: { workspace_id: 'uuid' } },
  {
    method: 'get',
    template: '/api/v1/files',
    key: 'api',
    query: { limit: 'int', cursor: 'string', after: 'string', after_id: 'string', order: 'enum', workspace_id: 'uuid' },
  },
  { method: 'get', template: '/api/v1/files/:file_id', key: 'api', query: { workspace_id: 'uuid' } },
  { method: 'get', template: '/api/v1/files/:file_id/content', key: 'api', query: { workspace_id: 'uuid' } },
  { method: 'delete', template: '/api/v1/files/:file_id', key: 'api', query: { workspace_id: 'uuid' } },
  { method: 'get', template: '/api/v1/generation', key: 'api', query: { id: 'string' } },
  {
    method: 'get',
    template: '/api/v1/models',
    key: 'api',
    query: {
      offset: 'int',
      limit: 'int',
      context: 'int',
      min_price: 'string',
      max_output_price: 'string',
      output_modalities: 'enum',
      input_modalities: 'enum',
      supported_parameters: 'string',
      q: 'string',
      providers: 'string',
      model_authors: 'string',
      arch: 'string',
      sort: 'enum',
      distillable: 'enum',
      zdr: 'enum',
      category: 'enum',
    },
  },
  { method: 'get', template: '/api/v1/models/:model', key: 'api' },
  { method: 'get', template: '/api/v1/models/:author/:slug', key: 'api' },
  { method: 'get', template: '/api/v1/models/:author/:slug/endpoints', key: 'api' },
  { method: 'get', template: '/api/v1/providers', key: 'api' },
  {
    method: 'get',
    template: '/api/v1/datasets/rankings-daily',
    key: 'api',
    query: {
      start_date: 'string',
      end_date: 'string',
      period: 'enum',
      modality: 'enum',
      context_bucket: 'enum',
      category: 'enum',
      language_type: 'enum',
    },
  },
  { method: 'get', template: '/api/v1/analytics/meta', key: 'mgmt' },
  {
    method: 'post',
    template: '/api/v1/analytics/query',
    key: 'mgmt',
    body: {
      base: {
        metrics: ['request_count'],
        dimensions: ['model'],
        filters: [{ field: 'model', operator: 'in', value: ['m'] }],
        time_range: { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' },
        order_by: { field: 'request_count', direction: 'desc' },
      },
      // Not filters.0.value.0: any finite number is a valid filter value.
      fields: [
        'metrics',
        'metrics.0',
        'dimensions',
        'dimensions.0',
        'filters',
        'filters.0.field',
        'filters.0.operator',
        'filters.0.include_unset',
        'granularity',
        'time_range.start',
        'time_range.end',
        'limit',
        'group_limit',
        'order_by.field',
        'order_by.direction',
        'classifier_dimensions.classifier_id',
        'classifier_filters',
      ],
      extra: [
        ['time_range.start', '"2026-11-01T00:00Z"'],
        ['limit', '0'],
        ['metrics', '[]'],
      ],
    },
  },
  {
    method: 'post',
    template: '/api/v1/workspaces/:id/classifiers',
    key: 'mgmt',
    body: {
      base: {
        name: 'hostile',
        dimensions: [{ name: 'topic', rules: [{ value: 'v', keywords: ['k'], patterns: ['a+b'] }] }],
      },
      fields: [
        'name',
        'active',
        'sample_rate',
        'dimensions',
        'dimensions.0.name',
        'dimensions.0.rules',
        'dimensions.0.rules.0.value',
        'dimensions.0.rules.0.keywords.0',
        'dimensions.0.rules.0.patterns.0',
      ],
      // Patterns RE2 cannot run (a backreference, a lookbehind); `(a+)+$` is linear-time there, so accepted.
      extra: [
        ['dimensions.0.rules.0.patterns.0', '"(a)\\\\1"'],
        ['dimensions.0.rules.0.patterns.0', '"(?<!a)b"'],
        ['sample_rate', '1.5'],
      ],
    },
  },
  { method: 'get', template: '/api/v1/workspaces/:id/classifiers', key: 'mgmt' },
  {
    method: 'get',
    template: '/api/v1/workspaces/:id/classifiers/:classifier_id',
    key: 'mgmt',
    params: { classifier_id: '00000000-0000-4000-8000-000000000000' },
  },
  {
    method: 'patch',
    template: '/api/v1/workspaces/:id/classifiers/:classifier_id',
    key: 'mgmt',
    params: { classifier_id: '00000000-0000-4000-8000-000000000000' },
    body: { base: { active: false }, fields: ['name', 'active', 'sample_rate', 'dimensions'] },
  },
  {
    method: 'delete',
    template: '/api/v1/workspaces/:id/classifiers/:classifier_id',
    key: 'mgmt',
    params: { classifier_id: '00000000-0000-4000-8000-000000000000' },
  },
];

/** Raw JSON texts no field of any route accepts. */
const HOSTILE_VALUES = [
  '{"$gt":""}',
  '"\\u0000"',
  '"nul\\u0000inside"',
  '"\\ud800"',
  '"a\\udfffb"',
  '1e400',
  '-1e308',
  '[[[[]]]]',
];

/** Whole bodies of the wrong shape for a JSON-object body. */
const WRONG_BODIES = [
  'null',
  '0',
  '-1e400',
  '"string"',
  'true',
  '[]',
  '[{}]',
  `${'['.repeat(4000)}${']'.repeat(4000)}`,
];

/** Raw query values per kind; `X` is replaced by the parameter name (for repeated keys). */
const HOSTILE_QUERY: Record<QueryKind, string[]> = {
  int: ['abc', '-1', '1.5', '1e400', 'Infinity', '99999999999999999999999', '%00', '1&X=2', '%ED%A0%80'],
  bool: ['maybe', '2', '%00', 'true&X=false'],
  uuid: [
    'not-a-uuid',
    '%00',
    'x'.repeat(3000),
    '00000000-0000-0000-0000-000000000000&X=00000000-0000-0000-0000-000000000001',
  ],
  ref: ['x'.repeat(101), '%00', 'a&X=b'],
  string: ['%00', 'x'.repeat(300), 'a&X=b'],
  enum: ['desc', '%00', 'asc&X=asc'],
};

/** Absurd path segments (already URL-encoded). */
const ABSURD_PARAMS = [
  'x'.repeat(3000),
  '%00',
  'a%00b',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%E0%A4%A',
  '%ED%A0%80',
  '%F0%9F%98%80'.repeat(40),
  '-1',
  '1e400',
  'null',
  '%20',
  '%25',
  "'%20OR%201=1--",
];

/** A concrete path for the route, with `override` for one parameter. */
function pathOf(route: RouteCase, override?: [string, string]): string {
  return route.template.replace(/:([A-Za-z_]+)/g, (_m, name: string) =>
    override?.[0] === name ? override[1] : (route.params?.[name] ?? (PARAM_DEFAULTS[name] as string)),
  );
}

/** The base body with `field` (dotted path) replaced by the raw JSON `raw`. */
function bodyWith(base: Record<string, unknown>, field: string, raw: string): string {
  const SENTINEL = '__switchyard_hostile__';
  const copy = structuredClone(base);
  const parts = field.split('.');
  let target = copy;
  for (const part of parts.slice(0, -1)) {
    target[part] ??= {};
    target = target[part] as Record<string, unknown>;
  }
  target[parts[parts.length - 1] as string] = SENTINEL;
  return JSON.stringify(copy).replace(`"${SENTINEL}"`, raw);
}

interface Attempt {
  label: string;
  path: string;
  body?: string;
}

/** Every hostile request for one route. */
function attempts(route: RouteCase): Attempt[] {
  const path = pathOf(route);
  const out: Attempt[] = [
    { label: 'malformed JSON', path, body: '{"name": "x",' },
    { label: 'oversized body', path, body: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT + 1) }) },
  ];
  for (const name of route.template.match(/:([A-Za-z_]+)/g) ?? []) {
    for (const value of ABSURD_PARAMS)
      out.push({ label: `path ${name}=${value.slice(0, 24)}`, path: pathOf(route, [name.slice(1), value]) });
  }
  for (const [name, kind] of Object.entries(route.query ?? {})) {
    for (const value of HOSTILE_QUERY[kind]) {
      out.push({
        label: `query ${name}=${value.slice(0, 24)}`,
        path: `${path}?${name}=${value.replaceAll('X=', `${name}=`)}`,
      });
    }
  }
  if (route.body) {
    const { base, fields, extra = [] } = route.body;
    for (const body of WRONG_BODIES) out.push({ label: `body ${body.slice(0, 24)}`, path, body });
    const cases: Array<[string, string]> = [
      ...fields.flatMap((f) => HOSTILE_VALUES.map((v): [string, string] => [f, v])),
      ...extra,
    ];
    for (const [field, raw] of cases)
      out.push({ label: `body.${field}=${raw}`, path, body: bodyWith(base, field, raw) });
  }
  return out;
}

describe.each(DATABASES)('hostile input on every route ($name)', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let apiKey: string;

  beforeAll(async () => {
    // The rankings route's own limits (30/min per key) would answer most of its sweep with 429s.
    ({ db, kv, gw } = await openTestGateway(dbKind, {
      server: { bodyLimitBytes: BODY_LIMIT, inferenceBodyLimitBytes: BODY_LIMIT },
      rankings: { perKeyPerMinute: 100000, perOrgPerDay: 100000 },
    }));
    apiKey = (await createInferenceKey(gw)).secret;
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  test('the sweep covers exactly the routes the app registers', () => {
    const registered = (gw.app.locals.apiRoutes as ApiRoute[]).map((r) => `${r.method} ${r.template}`).sort();
    const swept = ROUTES.map((r) => `${r.method} ${r.template}`).sort();
    expect(swept).toEqual(registered);
  });

  test.each(ROUTES.map((r) => [`${r.method.toUpperCase()} ${r.template}`, r] as const))(
    '%s: every hostile input → 4xx envelope',
    async (_name, route) => {
      const secret = route.key === 'mgmt' ? gw.mgmtKey : apiKey;
      const failures: string[] = [];
      for (const attempt of attempts(route)) {
        let req = request(gw.app)[route.method](attempt.path).set('Authorization', bearer(secret));
        if (attempt.body !== undefined) req = req.set('Content-Type', 'application/json').send(attempt.body);
        const res = await req;
        const ok =
          res.status >= 400 &&
          res.status < 500 &&
          /^application\/json/.test(String(res.headers['content-type'])) &&
          isEnvelope(route.template, res.status, res.body);
        if (!ok) failures.push(`${attempt.label} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
    },
  );

  test('nothing was created by the hostile traffic', async () => {
    const keys = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM api_keys WHERE name IN ('hostile', 'renamed')",
    );
    const workspaces = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM workspaces WHERE slug = 'hostile-ws'",
    );
    expect(keys[0]!.n).toBe(0);
    expect(workspaces[0]!.n).toBe(0);
  });
});
