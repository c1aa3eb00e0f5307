/**
 * `GET /generation?id=` through HTTP on every database × Kv: the reference notes' Generation
 * shape with every field, the recorded figures, organization scoping (another org's id is 404),
 * 404 before the outbox has written the record, and 400 for a missing or blank id. Chat records
 * (`gen-<seconds>-<20 alnum>` ids) round-trip every field through the recorder of each Kv kind
 * and are served with their chat figures (reference notes §9.1). Token counts past 2^31 are
 * stored and served as numbers, and figures no column can hold are stored bounded.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import { expectSchema } from '../helpers/expect-schema';
import type { Kv } from '../../src/kv/kv';
import type { UsageEvent } from '../../src/usage/types';
import { USAGE_COLUMNS } from '../../src/usage/columns';
import { writeUsage } from '../../src/usage/write';
import type { CallerContext } from '../../src/inference/caller';

/** Every field of the reference notes' Generation object (§9), and the gateway's `wildcard_priced`. */
const GENERATION_FIELDS = [
  'id',
  'created_at',
  'model',
  'origin',
  'api_type',
  'app_id',
  'cache_discount',
  'cancelled',
  'data_region',
  'external_user',
  'finish_reason',
  'native_finish_reason',
  'generation_time',
  'latency',
  'moderation_latency',
  'http_referer',
  'is_byok',
  'native_tokens_prompt',
  'native_tokens_completion',
  'native_tokens_completion_images',
  'native_tokens_reasoning',
  'native_tokens_cached',
  'num_fetches',
  'num_input_audio_prompt',
  'num_media_prompt',
  'num_media_completion',
  'num_search_results',
  'preset_id',
  'provider_name',
  'provider_responses',
  'request_id',
  'response_cache_source_id',
  'router',
  'service_tier',
  'session_id',
  'streamed',
  'tokens_prompt',
  'tokens_completion',
  'total_cost',
  'usage',
  'upstream_id',
  'upstream_inference_cost',
  'user_agent',
  'web_search_engine',
  'workspace_id',
  'wildcard_priced',
];

describe.each(DATABASES)('GET /generation on $name', (dbKind) => {
  describe.each(KVS)('with $name kv', (kvKind) => {
    let db: Database;
    let kv: Kv;
    let gw: TestGateway;
    let other: TestGateway;
    let key: string;

    beforeAll(async () => {
      db = await dbKind.open();
      kv = await kvKind.open();
      const overrides = { usage: { batchSize: 100, flushIntervalMs: 60_000 } };
      gw = await createTestGateway(db, kv, overrides);
      other = await createTestGateway(db, kv, overrides);
      key = (await createInferenceKey(gw)).secret;
    });
    afterAll(async () => {
      await gw.deps.recorder.close();
      await other.deps.recorder.close();
      await kv.close();
      await db.close();
    });

    const usageEvent = (t: TestGateway, over: Partial<UsageEvent> = {}): UsageEvent => ({
      id: `gen-emb-1790000000-${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      createdAt: new Date('2026-11-22T08:30:00.000Z'),
      orgId: t.orgId,
      workspaceId: t.defaultWorkspaceId,
      keyHash: 'a'.repeat(64),
      endUser: 'end-user-7',
      sessionId: 'sess-1',
      apiType: 'embeddings',
      model: 'openai/text-embedding-3-small',
      provider: 'openai',
      upstreamId: 'up-123',
      tokensPrompt: 42,
      tokensCompletion: 0,
      costUsd: 8.4e-7,
      latencyMs: 57,
      generationTimeMs: 50,
      attempts: 2,
      status: 'ok',
      inputModality: 'text',
      userAgent: 'openai-node/6',
      httpReferer: 'https://app.example',
      appTitle: 'Example',
      origin: null,
      finishReason: null,
      variant: null,
      outputModality: 'embeddings',
      toolCalls: 0,
      isByok: false,
      upstreamCostUsd: 8.4e-7,
      cachedTokens: 0,
      ...over,
    });

    test('returns every Generation field with the recorded figures', async () => {
      const e = usageEvent(gw);
      await gw.deps.recorder.record(e);
      await gw.deps.recorder.flush();
      const res = await request(gw.app).get(`/api/v1/generation?id=${e.id}`).set('Authorization', bearer(key));
      expect(res.status).toBe(200);
      expectSchema(res.body, 'generation.response');
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(Object.keys(res.body.data).sort()).toEqual([...GENERATION_FIELDS].sort());
      expect(res.body.data).toMatchObject({
        id: e.id,
        created_at: '2026-11-22T08:30:00.000Z',
        model: 'openai/text-embedding-3-small',
        api_type: 'embeddings',
        provider_name: 'openai',
        upstream_id: 'up-123',
        tokens_prompt: 42,
        tokens_completion: 0,
        native_tokens_prompt: 42,
        total_cost: 8.4e-7,
        usage: 8.4e-7,
        latency: 57,
        generation_time: 50,
        is_byok: false,
        streamed: false,
        cancelled: false,
        origin: 'https://app.example',
        http_referer: 'https://app.example',
        user_agent: 'openai-node/6',
        external_user: 'end-user-7',
        session_id: 'sess-1',
        workspace_id: gw.defaultWorkspaceId,
        data_region: 'global',
      });
    });

    const chatEvent = (t: TestGateway, over: Partial<UsageEvent> = {}): UsageEvent =>
      usageEvent(t, {
        id: `gen-1790000123-${randomUUID().replace(/-/g, '').slice(0, 20)}`,
        createdAt: new Date('2026-11-22T08:31:02.345Z'),
        apiType: 'chat',
        model: 'anthropic/claude-sonnet-4',
        provider: 'anthropic',
        tokensPrompt: 1200,
        tokensCompletion: 340,
        costUsd: 0.00876,
        latencyMs: 2300,
        generationTimeMs: 2050,
        inputModality: 'image',
        finishReason: 'tool_calls',
        outputModality: 'text',
        toolCalls: 2,
        cachedTokens: 800,
        cacheSavedUsd: 0.0021,
        streamed: true,
        timeToFirstTokenMs: 250,
        nativeFinishReason: 'tool_use',
        usageEstimated: true,
        cacheWriteTokens: 300,
        reasoningTokens: 64,
        wildcardPriced: true,
        ...over,
      });

    /** The stored row of `id` as a usage event (every column the recorder writes, by its field name). */
    const storedEvent = async (id: string): Promise<Record<string, unknown>> => {
      const [row] = await db.query<Record<string, unknown>>(
        `SELECT ${USAGE_COLUMNS.map(([c]) => c).join(', ')} FROM generations WHERE id = $1`,
        [id],
      );
      expect(row).toBeDefined();
      const out: Record<string, unknown> = {};
      // bigint columns: node-postgres reads them as strings, PGlite as numbers.
      for (const [column, field, type] of USAGE_COLUMNS)
        out[field] =
          column === 'created_at'
            ? new Date(row![column] as string)
            : type === 'int8'
              ? Number(row![column])
              : row![column];
      return out;
    };

    test('a chat event with every chat field reads back equal from the table', async () => {
      const e = chatEvent(gw);
      await gw.deps.recorder.record(e);
      await gw.deps.recorder.flush();
      expect(await storedEvent(e.id)).toEqual(e);
    });

    test('a record of 3e9 tokens (past 2^31) is written and read back, as numbers', async () => {
      const big = 3_000_000_000;
      const e = chatEvent(gw, {
        tokensPrompt: big,
        tokensCompletion: big,
        cachedTokens: big - 1,
        cacheWriteTokens: 1,
        reasoningTokens: big,
      });
      await gw.deps.recorder.record(e);
      await gw.deps.recorder.flush();
      expect(await storedEvent(e.id)).toEqual(e);
      const res = await request(gw.app).get(`/api/v1/generation?id=${e.id}`).set('Authorization', bearer(key));
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        tokens_prompt: big,
        tokens_completion: big,
        native_tokens_prompt: big,
        native_tokens_reasoning: big,
        native_tokens_cached: big - 1,
      });
    });

    test('figures no column can hold are stored bounded: the record is written, never refused', async () => {
      const e = chatEvent(gw, {
        tokensPrompt: 1e300,
        tokensCompletion: -4,
        cachedTokens: 2.5,
        reasoningTokens: NaN,
        costUsd: Infinity,
        latencyMs: 1e12,
      });
      const ctx = { requestId: 'req-bounded', trace: undefined } as unknown as CallerContext;
      await writeUsage(gw.deps, ctx, e);
      await gw.deps.recorder.flush();
      expect(await storedEvent(e.id)).toMatchObject({
        tokensPrompt: Number.MAX_SAFE_INTEGER,
        tokensCompletion: 0,
        cachedTokens: 3,
        reasoningTokens: 0,
        costUsd: 0,
        latencyMs: 2_147_483_647,
      });
    });

    test('an event without the chat fields stores their defaults (not streamed, not estimated, zero tokens)', async () => {
      const e = usageEvent(gw);
      await gw.deps.recorder.record(e);
      await gw.deps.recorder.flush();
      expect(await storedEvent(e.id)).toEqual({
        ...e,
        cacheSavedUsd: null,
        streamed: false,
        timeToFirstTokenMs: null,
        nativeFinishReason: null,
        usageEstimated: false,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        wildcardPriced: false,
      });
    });

    test('a chat generation is served with its chat figures; latency is the time to first token', async () => {
      const e = chatEvent(gw);
      await gw.deps.recorder.record(e);
      await gw.deps.recorder.flush();
      const res = await request(gw.app).get(`/api/v1/generation?id=${e.id}`).set('Authorization', bearer(key));
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual([...GENERATION_FIELDS].sort());
      expect(res.body.data).toMatchObject({
        id: e.id,
        api_type: 'completions',
        model: 'anthropic/claude-sonnet-4',
        provider_name: 'anthropic',
        streamed: true,
        finish_reason: 'tool_calls',
        native_finish_reason: 'tool_use',
        tokens_prompt: 1200,
        tokens_completion: 340,
        native_tokens_prompt: 1200,
        native_tokens_completion: 340,
        native_tokens_reasoning: 64,
        native_tokens_cached: 800,
        generation_time: 2050,
        latency: 250,
        total_cost: 0.00876,
        usage: 0.00876,
        cache_discount: 0.0021,
      });
    });

    test('a chat generation that was not streamed and had no reasoning or cache reads says so with false and zeros', async () => {
      const e = chatEvent(gw, {
        streamed: false,
        cachedTokens: 0,
        reasoningTokens: 0,
        timeToFirstTokenMs: 1900,
        finishReason: 'stop',
        nativeFinishReason: 'end_turn',
      });
      await gw.deps.recorder.record(e);
      await gw.deps.recorder.flush();
      const res = await request(gw.app).get(`/api/v1/generation?id=${e.id}`).set('Authorization', bearer(key));
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        streamed: false,
        native_tokens_reasoning: 0,
        native_tokens_cached: 0,
        latency: 1900,
        finish_reason: 'stop',
        native_finish_reason: 'end_turn',
      });
    });

    test('an embeddings generation keeps its answer: no finish reasons, latency is the whole call, no reasoning figure', async () => {
      const e = usageEvent(gw, { finishReason: 'stop' });
      await gw.deps.recorder.record(e);
      await gw.deps.recorder.flush();
      const res = await request(gw.app).get(`/api/v1/generation?id=${e.id}`).set('Authorization', bearer(key));
      expect(res.body.data).toMatchObject({
        api_type: 'embeddings',
        streamed: false,
        finish_reason: null,
        native_finish_reason: null,
        latency: 57,
        native_tokens_reasoning: null,
        native_tokens_cached: null,
      });
    });

    test('any key of the organization may read it, the management key included', async () => {
      const e = usageEvent(gw);
      await gw.deps.recorder.record(e);
      await gw.deps.recorder.flush();
      const res = await request(gw.app).get(`/api/v1/generation?id=${e.id}`).set('Authorization', bearer(gw.mgmtKey));
      expect(res.status).toBe(200);
      expectSchema(res.body, 'generation.response');
      expect(res.body.data.id).toBe(e.id);
    });

    test("another organization's generation is 404, as is an unknown id", async () => {
      const theirs = usageEvent(other);
      await other.deps.recorder.record(theirs);
      await other.deps.recorder.flush();
      const otherKey = (await createInferenceKey(other)).secret;
      await request(other.app)
        .get(`/api/v1/generation?id=${theirs.id}`)
        .set('Authorization', bearer(otherKey))
        .expect(200);
      const res = await request(gw.app).get(`/api/v1/generation?id=${theirs.id}`).set('Authorization', bearer(key));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
      await request(gw.app)
        .get('/api/v1/generation?id=gen-emb-0-doesnotexist')
        .set('Authorization', bearer(key))
        .expect(404);
    });

    test('a recorded generation the outbox has not written yet is 404, then 200 once flushed', async () => {
      const e = usageEvent(gw);
      await gw.deps.recorder.record(e);
      await request(gw.app).get(`/api/v1/generation?id=${e.id}`).set('Authorization', bearer(key)).expect(404);
      await gw.deps.recorder.flush();
      await request(gw.app).get(`/api/v1/generation?id=${e.id}`).set('Authorization', bearer(key)).expect(200);
    });

    test('missing or blank id → 400 naming query.id', async () => {
      for (const q of ['', '?id=', '?id=%20%20']) {
        const res = await request(gw.app).get(`/api/v1/generation${q}`).set('Authorization', bearer(key));
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe(400);
        expect(JSON.stringify(res.body.error.metadata)).toContain('query.id');
      }
    });

    test('no key → 401', async () => {
      await request(gw.app).get('/api/v1/generation?id=x').expect(401);
    });
  });
});
