/**
 * `GET /generation?id=` through HTTP on every database × Kv: the reference notes' Generation
 * shape with every field, the recorded figures, organization scoping (another org's id is 404),
 * 404 before the outbox has written the record, and 400 for a missing or blank id.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import { expectSchema } from '../helpers/expect-schema';
import type { Kv } from '../../src/kv/kv';
import type { UsageEvent } from '../../src/usage/types';

/** Every field of the reference notes' Generation object (§9). */
const GENERATION_FIELDS = [
  'id', 'created_at', 'model', 'origin', 'api_type', 'app_id', 'cache_discount', 'cancelled', 'data_region',
  'external_user', 'finish_reason', 'native_finish_reason', 'generation_time', 'latency', 'moderation_latency',
  'http_referer', 'is_byok', 'native_tokens_prompt', 'native_tokens_completion', 'native_tokens_completion_images',
  'native_tokens_reasoning', 'native_tokens_cached', 'num_fetches', 'num_input_audio_prompt', 'num_media_prompt',
  'num_media_completion', 'num_search_results', 'preset_id', 'provider_name', 'provider_responses', 'request_id',
  'response_cache_source_id', 'router', 'service_tier', 'session_id', 'streamed', 'tokens_prompt', 'tokens_completion',
  'total_cost', 'usage', 'upstream_id', 'upstream_inference_cost', 'user_agent', 'web_search_engine', 'workspace_id',
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
      createdAt: new Date('2026-11-22T08:30:00.000Z'), orgId: t.orgId, workspaceId: t.defaultWorkspaceId,
      keyHash: 'a'.repeat(64), endUser: 'end-user-7', sessionId: 'sess-1', apiType: 'embeddings',
      model: 'openai/text-embedding-3-small', provider: 'openai', upstreamId: 'up-123', tokensPrompt: 42,
      tokensCompletion: 0, costUsd: 8.4e-7, latencyMs: 57, generationTimeMs: 50, attempts: 2, status: 'ok',
      inputModality: 'text', userAgent: 'openai-node/6', httpReferer: 'https://app.example', appTitle: 'Example',
      origin: null, finishReason: null, variant: null, outputModality: 'embeddings', toolCalls: 0, isByok: false,
      upstreamCostUsd: 8.4e-7, cachedTokens: 0, ...over,
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
      await request(other.app).get(`/api/v1/generation?id=${theirs.id}`).set('Authorization', bearer(otherKey)).expect(200);
      const res = await request(gw.app).get(`/api/v1/generation?id=${theirs.id}`).set('Authorization', bearer(key));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
      await request(gw.app).get('/api/v1/generation?id=gen-emb-0-doesnotexist').set('Authorization', bearer(key)).expect(404);
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
