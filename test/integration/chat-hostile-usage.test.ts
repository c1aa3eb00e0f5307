/**
 * An upstream's reported usage cannot bill any amount. A hostile fake upstream answers normally
 * but reports impossible usage (cached tokens far above the prompt, a completion far above
 * `max_tokens`, negative and fractional counts, 1e300), whole and streamed, on the OpenAI and
 * Anthropic wire formats, against a $0.01 workspace budget and a $0.02 key limit. Through HTTP:
 * every answer is a 200 with bounded usage and a cost within its reservation; it has its usage
 * record, marked estimated, with the answer's cost; spend stays within both limits; the budget
 * counters equal what the budget and key APIs report, with no hold left; and the replaced counts
 * are logged once per answer, with the provider and without the answer's text. Run on the
 * in-process Kv with PGlite and on Redis with PostgreSQL.
 */
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { DATABASE_URL, REDIS_URL, KVS, openTestPglite, openTestPostgres, openTestRedisKv } from '../helpers/services';
import { until } from '../helpers/eventually';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { anthropicUsageFault, openaiUsageFault, type UsagePatch } from '../fakes/hostile-usage';
import type { Fault } from '../fakes/server';
import type { Database } from '../../src/store/db';
import type { Kv, KvScript } from '../../src/kv/kv';
import type { ApiKeyRecord } from '../../src/keys/types';
import { budgetCounterBase, limitsFor } from '../../src/budgets/limits';
import { periodOf } from '../../src/budgets/periods';
import { createLogger } from '../../src/observability/logger';

const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const HAIKU = 'anthropic/claude-3.5-haiku';
const BUDGET = 0.01;
const KEY_LIMIT = 0.02;
const MAX_TOKENS = 10;
/** What the fake model says back (`echo: <prompt>`): must never reach a log line. */
const PROMPT = 'tell me about the hostile upstream';

/** Test-only: a counter's value in nano-USD (GET), on both Kv kinds; null when missing. */
const COUNTER: KvScript<number | null> = {
  name: 'test_counter_value',
  lua: `return redis.call('GET', KEYS[1])`,
  memory: (data, keys) => data.get(keys[0] as string),
  parse: (reply) => (typeof reply === 'string' ? Number(reply) : null),
};

interface Wire {
  name: string;
  model: string;
  provider: string;
  fault: (patch: UsagePatch, stream: boolean) => Fault;
}

const OPENAI: Wire = { name: 'OpenAI', model: LLAMA, provider: 'deepinfra', fault: openaiUsageFault };
const ANTHROPIC: Wire = { name: 'Anthropic', model: HAIKU, provider: 'anthropic', fault: anthropicUsageFault };

/** Each bad usage of the issue, on each wire, with the reported fields the gateway must replace. */
const CASES: Array<[string, string, Wire, UsagePatch, string[]]> = [
  [
    'cached_tokens 1e9 with max_tokens 10',
    'OpenAI',
    OPENAI,
    { prompt_tokens_details: { cached_tokens: 1e9 } },
    ['cacheReadTokens'],
  ],
  ['completion_tokens 1e12', 'OpenAI', OPENAI, { completion_tokens: 1e12 }, ['completionTokens']],
  ['a negative completion_tokens', 'OpenAI', OPENAI, { completion_tokens: -5 }, ['completionTokens']],
  ['a fractional prompt_tokens', 'OpenAI', OPENAI, { prompt_tokens: 2.5 }, ['promptTokens']],
  [
    '1e300 prompt and completion tokens',
    'OpenAI',
    OPENAI,
    { prompt_tokens: 1e300, completion_tokens: 1e300 },
    ['promptTokens', 'completionTokens'],
  ],
  [
    'cache_read_input_tokens 1e9 with max_tokens 10',
    'Anthropic',
    ANTHROPIC,
    { cache_read_input_tokens: 1e9 },
    ['promptTokens', 'cacheReadTokens'],
  ],
  [
    'cache_creation_input_tokens 1e12',
    'Anthropic',
    ANTHROPIC,
    { cache_creation_input_tokens: 1e12 },
    ['promptTokens', 'cacheWriteTokens'],
  ],
  ['output_tokens 1e12', 'Anthropic', ANTHROPIC, { output_tokens: 1e12 }, ['completionTokens']],
  ['a negative input_tokens', 'Anthropic', ANTHROPIC, { input_tokens: -5 }, ['promptTokens']],
  [
    'a fractional cache_creation_input_tokens',
    'Anthropic',
    ANTHROPIC,
    { cache_creation_input_tokens: 2.5 },
    ['promptTokens', 'cacheWriteTokens'],
  ],
  [
    '1e300 input and output tokens',
    'Anthropic',
    ANTHROPIC,
    { input_tokens: 1e300, output_tokens: 1e300 },
    ['promptTokens', 'completionTokens'],
  ],
];

const STORES: Array<{ name: string; open: () => Promise<{ db: Database; kv: Kv }> }> = [
  {
    name: 'the in-process Kv and PGlite',
    open: async () => ({ db: await openTestPglite(), kv: await KVS[0]!.open() }),
  },
  ...(REDIS_URL && DATABASE_URL
    ? [
        {
          name: 'Redis and PostgreSQL',
          open: async () => ({ db: await openTestPostgres(), kv: await openTestRedisKv() }),
        },
      ]
    : []),
];

/** The answer of one request, whole or streamed: its id, usage and cost. */
interface Answer {
  id: string;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    cost: number;
    prompt_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  };
}

describe.each(STORES)('hostile upstream usage on $name', (stores) => {
  let db: Database;
  let kv: Kv;
  let fleet: FakeFleet;
  let gw: TestGateway;
  let logged = '';

  beforeAll(async () => {
    ({ db, kv } = await stores.open());
    fleet = await startFakeFleet();
    const lines = new PassThrough();
    lines.on('data', (chunk: Buffer) => void (logged += chunk.toString('utf8')));
    gw = await createTestGateway(
      db,
      kv,
      { ...fleet.overrides, chat: { attemptTimeoutMs: 15_000, deadlineMs: 20_000 } },
      undefined,
      { logger: createLogger('warn', lines) },
    );
  });
  afterAll(async () => {
    await gw.deps.chat.drain();
    await gw.deps.routing.close();
    await gw.deps.recorder.close();
    await fleet.closeAll();
    await kv.close();
    await db.close();
  });
  beforeEach(() => {
    fleet.resetAll();
    logged = '';
  });

  const mgmt = () => bearer(gw.mgmtKey);

  /** A new workspace with a daily budget and one inference key with a lifetime limit. */
  async function tenant(): Promise<{ workspaceId: string; secret: string; hash: string }> {
    const slug = `ws-${Math.random().toString(36).slice(2, 10)}`;
    const ws = await request(gw.app).post('/api/v1/workspaces').set('Authorization', mgmt()).send({ name: slug, slug });
    expect(ws.status).toBe(201);
    expect(
      (
        await request(gw.app)
          .put(`/api/v1/workspaces/${slug}/budgets/daily`)
          .set('Authorization', mgmt())
          .send({ limit_usd: BUDGET })
      ).status,
    ).toBe(200);
    const { secret, hash } = await createInferenceKey(gw, {
      name: 'k',
      workspace_id: ws.body.data.id,
      limit: KEY_LIMIT,
    });
    return { workspaceId: ws.body.data.id as string, secret, hash };
  }

  /** One request to `wire`'s model with max_tokens 10; its answer (the last chunk's, for a stream). */
  async function ask(secret: string, wire: Wire, stream: boolean): Promise<Answer> {
    const body = {
      model: wire.model,
      max_tokens: MAX_TOKENS,
      stream,
      provider: { only: [wire.provider] },
      messages: [{ role: 'user', content: PROMPT }],
    };
    const res = await request(gw.app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(secret))
      .send(body)
      .buffer(true);
    expect(res.status).toBe(200);
    if (!stream) return res.body as Answer;
    const events = res.text.split('\n\n').filter((e) => e.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    return JSON.parse(events.at(-2)!.slice(6)) as Answer;
  }

  /** Spend as the budget counters hold it (USD): the workspace's daily one and the key's lifetime one. */
  async function counters(workspaceId: string, hash: string): Promise<{ workspace: number; key: number }> {
    const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;
    const [keyCounter] = limitsFor(key, [], Date.now());
    const workspace = await kv.run(
      COUNTER,
      [`${budgetCounterBase(workspaceId, periodOf('daily', Date.now()))}:spent`],
      [],
    );
    const own = await kv.run(COUNTER, [keyCounter!.spentKey], []);
    return { workspace: (workspace ?? NaN) / 1e9, key: (own ?? NaN) / 1e9 };
  }

  test.each(CASES)(
    '%s (%s wire), whole and streamed: bounded, recorded, estimated, counted once',
    async (_, __, wire, patch, fields) => {
      const { workspaceId, secret, hash } = await tenant();
      const answers: Answer[] = [];
      for (const stream of [false, true]) {
        fleet.fakes[wire.provider]!.queue(wire.fault(patch, stream));
        answers.push(await ask(secret, wire, stream));
      }
      await gw.deps.chat.drain();
      await gw.deps.recorder.flush();

      for (const a of answers) {
        expect(a.usage.completion_tokens).toBeLessThanOrEqual(MAX_TOKENS);
        expect(a.usage.prompt_tokens).toBeLessThan(1000);
        expect(
          a.usage.prompt_tokens_details.cached_tokens + a.usage.prompt_tokens_details.cache_write_tokens,
        ).toBeLessThanOrEqual(a.usage.prompt_tokens);
        expect(a.usage.cost).toBeGreaterThan(0);
        expect(a.usage.cost).toBeLessThan(BUDGET / 10);
      }
      const rows = await db.query<{ id: string; cost_usd: number; usage_estimated: boolean; streamed: boolean }>(
        'SELECT id, cost_usd, usage_estimated, streamed FROM generations WHERE workspace_id = $1 ORDER BY streamed',
        [workspaceId],
      );
      expect(rows.map((r) => [r.id, Number(r.cost_usd), r.usage_estimated, r.streamed])).toEqual(
        answers.map((a, i) => [a.id, a.usage.cost, true, i === 1]),
      );
      const generation = await request(gw.app)
        .get(`/api/v1/generation?id=${answers[0]!.id}`)
        .set('Authorization', bearer(secret));
      expect(generation.status).toBe(200);
      expect(generation.body.data.total_cost).toBe(answers[0]!.usage.cost);

      const recorded = answers.reduce((sum, a) => sum + a.usage.cost, 0);
      // A request admitted on a budget lease reaches the counters when the lease closes (budgets.leaseMs).
      const budget = await until('no budget held any more', async () => {
        const res = await request(gw.app)
          .get(`/api/v1/workspaces/${workspaceId}/budgets/daily`)
          .set('Authorization', mgmt());
        return res.body.data.reserved_usd === 0 ? res : null;
      });
      const key = await request(gw.app).get(`/api/v1/keys/${hash}`).set('Authorization', mgmt());
      expect(budget.body.data.spent_usd).toBeCloseTo(recorded, 12);
      expect(budget.body.data.spent_usd).toBeLessThanOrEqual(BUDGET);
      expect(key.body.data.usage).toBeCloseTo(recorded, 12);
      expect(key.body.data.usage).toBeLessThanOrEqual(KEY_LIMIT);
      const spent = await counters(workspaceId, hash);
      expect(spent.workspace).toBeCloseTo(budget.body.data.spent_usd, 9);
      expect(spent.key).toBeCloseTo(key.body.data.usage, 9);

      const lines = logged
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const bounded = lines.filter((l) => l.message === 'upstream usage out of bounds; the gateway counted instead');
      expect(bounded).toHaveLength(2);
      for (const line of bounded)
        expect(line).toMatchObject({ level: 'warn', api: 'chat', provider: wire.provider, model: wire.model, fields });
      expect(logged).not.toContain('hostile upstream');
    },
  );

  test('usage within bounds is billed as reported, not estimated, and nothing is logged', async () => {
    const { workspaceId, secret } = await tenant();
    for (const wire of [OPENAI, ANTHROPIC]) for (const stream of [false, true]) await ask(secret, wire, stream);
    await gw.deps.chat.drain();
    await gw.deps.recorder.flush();
    const rows = await db.query<{ usage_estimated: boolean }>(
      'SELECT usage_estimated FROM generations WHERE workspace_id = $1',
      [workspaceId],
    );
    expect(rows.map((r) => r.usage_estimated)).toEqual([false, false, false, false]);
    expect(logged).toBe('');
  });
});
