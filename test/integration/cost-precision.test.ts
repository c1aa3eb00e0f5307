/**
 * Costs leave the gateway at the precision prices carry (nano-dollars), never with binary
 * floating-point noise: 3 tokens at $0.02 per 1M are `6e-8`, not `6.000000000000001e-8`, in the
 * embeddings answer, the Generation object, analytics sums, key usage and budget spend, both for
 * new requests through a fake upstream and for records written before the rounding existed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { bearer, testConfig } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import { event } from '../helpers/analytics-fixture';
import { roundUsd } from '../../src/catalog/usd';
import { loadCatalog } from '../../src/catalog/load';

/** 3 × 0.00000002 in binary floating point. */
const NOISY = 3 * 0.00000002;

describe('cost precision', () => {
  let h: GatewayHarness;
  let keyHash: string;
  const mgmt = (r: request.Test) => r.set('Authorization', bearer(h.gw.mgmtKey));

  beforeAll(async () => {
    h = await startGatewayHarness();
    keyHash = (await mgmt(request(h.gw.app).get('/api/v1/keys'))).body.data[0].hash as string;
  });
  afterAll(() => h.close());

  test('the premise: the float product is noisy, and roundUsd removes exactly the noise', () => {
    expect(NOISY).not.toBe(6e-8);
    expect(roundUsd(NOISY)).toBe(6e-8);
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
    expect(roundUsd(0.000000016)).toBe(0.000000016);
    expect(roundUsd(12345.678901234)).toBe(12345.678901234);
  });

  test('an embeddings answer and its Generation carry the exact cost', async () => {
    const res = await h.post({ model: 'openai/text-embedding-3-small', input: 'abc' });
    expect(res.status).toBe(200);
    expect(res.body.usage.prompt_tokens).toBe(3);
    expect(res.body.usage.cost).toBe(6e-8);
    expect(res.text).toContain('"cost":6e-8,');
    await h.gw.deps.recorder.flush();
    const gen = await request(h.gw.app).get(`/api/v1/generation?id=${res.body.id}`).set('Authorization', bearer(h.key));
    expect(gen.status).toBe(200);
    expect(gen.body.data.total_cost).toBe(6e-8);
    expect(gen.body.data.usage).toBe(6e-8);
  });

  test('records written with noise, and sums of them, are answered rounded everywhere', async () => {
    const at = new Date(h.clock.now).toISOString();
    const ws = h.gw.defaultWorkspaceId;
    const old = event(h.gw.orgId, ws, keyHash, at, {
      costUsd: NOISY,
      upstreamCostUsd: NOISY,
      model: 'openai/text-embedding-3-small',
      tokensPrompt: 3,
    });
    await insertUsageEvents(h.gw.deps.db, [
      old,
      event(h.gw.orgId, ws, keyHash, at, { costUsd: 0.1, upstreamCostUsd: 0.1 }),
      event(h.gw.orgId, ws, keyHash, at, { costUsd: 0.2, upstreamCostUsd: 0.2 }),
    ]);
    // The request of the previous test (6e-8), the noisy old record (6e-8), 0.1 and 0.2.
    const expected = 0.30000012;

    const gen = await mgmt(request(h.gw.app).get(`/api/v1/generation?id=${old.id}`));
    expect(gen.body.data.total_cost).toBe(6e-8);

    const day = new Date(h.clock.now - (h.clock.now % 86_400_000));
    const time_range = { start: day.toISOString(), end: new Date(day.getTime() + 86_400_000).toISOString() };
    const analytics = await mgmt(request(h.gw.app).post('/api/v1/analytics/query')).send({
      metrics: ['total_usage', 'credits_usage', 'usage_upstream', 'request_count'],
      time_range,
    });
    expect(analytics.status).toBe(200);
    expect(analytics.body.data.data).toEqual([
      { total_usage: expected, credits_usage: expected, usage_upstream: expected, request_count: 4 },
    ]);
    const byModel = await mgmt(request(h.gw.app).post('/api/v1/analytics/query')).send({
      metrics: ['total_usage'],
      dimensions: ['model'],
      time_range,
      order_by: { field: 'total_usage', direction: 'asc' },
    });
    expect(byModel.body.data.data[0]).toEqual({ model: 'openai/text-embedding-3-small', total_usage: 1.2e-7 });

    const key = await mgmt(request(h.gw.app).get(`/api/v1/keys/${keyHash}`));
    expect(key.body.data.usage).toBe(expected);

    const put = await mgmt(request(h.gw.app).put(`/api/v1/workspaces/${ws}/budgets/lifetime`)).send({ limit_usd: 5 });
    expect(put.status).toBeLessThan(300);
    const budget = await mgmt(request(h.gw.app).get(`/api/v1/workspaces/${ws}/budgets/lifetime`));
    expect(budget.body.data.spent_usd).toBe(expected);
  });

  test('a catalog price finer than a nano-dollar per token is refused at boot, naming it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'catalog-'));
    try {
      const models = path.join(dir, 'models.yaml');
      writeFileSync(
        models,
        'models:\n  - id: a/m\n    name: M\n    created: 1\n    context_length: 10\n    endpoints:\n      - provider: openai\n        upstream_model: m\n        pricing: { prompt: "0.0015" }\n',
      );
      const config = testConfig({ catalog: { modelsFile: models } });
      expect(() =>
        loadCatalog(config, {
          embeddings: new Set(['openai', 'cohere', 'gemini', 'voyage']),
          chat: new Set(['openai', 'anthropic']),
        }),
      ).toThrow(/a\/m\.endpoints\.openai\.pricing: prompt 0\.0000000015 USD has more than 9 decimals/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
