/**
 * Fallback paths and every final status through HTTP, with faults injected into the fake
 * upstreams of baai/bge-m3 (tried in the order deepinfra → nebius → together): 5xx, invalid
 * bodies, connection resets, hangs (per-attempt timeout and overall deadline), 429 with
 * Retry-After, 529 and "overloaded" 503s, request errors (400/422, no fallback), plus the
 * circuit breaker across requests on both Kv kinds, and the upstream metrics.
 */
import request from 'supertest';
import { KVS } from '../helpers/services';
import { createInferenceKey, gatewayApp } from '../helpers/gateway';
import { provisionOrg } from '../../src/orgs/provision';
import { FAST_UPSTREAM, startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import type { Fault } from '../fakes/server';

const BGE = 'baai/bge-m3';
const ALL = ['deepinfra', 'nebius', 'together'] as const;

describe('fallback and final statuses', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ overrides: { breaker: { failureThreshold: 1000, cooldownMs: 1000 } } });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.fleet.resetAll();
    h.events.length = 0;
  });

  const post = (body: Record<string, unknown> = {}) => h.post({ model: BGE, input: 'hello', ...body });
  const everywhere = (fault: Fault) => ALL.forEach((s) => h.fleet.fakes[s]!.setSticky(fault));
  const upstreamCount = async (provider: string, outcome: string) =>
    (await h.gw.deps.metrics.upstreamRequests.get()).values.find(
      (v) => v.labels.provider === provider && v.labels.model === BGE && v.labels.outcome === outcome,
    )?.value ?? 0;
  const attemptsOf = (res: { body: { error: { metadata: { attempts: unknown[] } } } }) =>
    res.body.error.metadata.attempts;

  test.each<[string, Fault, string]>([
    ['500', { status: 500 }, 'server'],
    ['502', { status: 502 }, 'server'],
    ['plain 503', { status: 503, body: { error: 'unavailable' } }, 'server'],
    ['401 (provider misconfigured)', { status: 401 }, 'server'],
    ['malformed JSON', { malformed: true }, 'server'],
    ['connection reset', { reset: true }, 'network'],
    ['429', { status: 429 }, 'rate_limited'],
    ['529', { status: 529 }, 'overloaded'],
  ])('first provider %s → falls back to the next, attempts recorded', async (_name, fault, outcome) => {
    h.fleet.fakes.deepinfra!.setSticky(fault);
    const before = await upstreamCount('deepinfra', outcome);
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('Nebius AI Studio');
    expect(h.events[0]!.attempts).toBe(2);
    expect(await upstreamCount('deepinfra', outcome)).toBe(before + 1);
  });

  test('an upstream body with the wrong number of vectors is invalid → next provider', async () => {
    h.fleet.fakes.deepinfra!.setSticky({ status: 200, body: { data: [] } });
    expect((await post({ input: ['a', 'b'] })).body.provider).toBe('Nebius AI Studio');
  });

  test('every provider 5xx / invalid → 502 naming each attempt, no upstream text or secrets', async () => {
    h.fleet.fakes.deepinfra!.setSticky({ status: 500, body: { error: { message: 'boom sk-upstream-secret-123' } } });
    h.fleet.fakes.nebius!.setSticky({ malformed: true });
    h.fleet.fakes.together!.setSticky({ status: 503, body: { error: 'down sk-upstream-secret-123' } });
    const res = await post();
    expect(res.status).toBe(502);
    expect(res.body.error.message).toBe('Provider returned error');
    expect(attemptsOf(res)).toEqual([
      { provider: 'deepinfra', outcome: 'server', status: 500 },
      { provider: 'nebius', outcome: 'server', status: 200 },
      { provider: 'together', outcome: 'server', status: 503 },
    ]);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('sk-upstream-secret');
    expect(text).not.toContain('test-key-');
    expect(h.events).toHaveLength(0);
  });

  test('every provider resets the connection → 502', async () => {
    everywhere({ reset: true });
    const res = await post();
    expect(res.status).toBe(502);
    expect(attemptsOf(res)).toEqual(ALL.map((provider) => ({ provider, outcome: 'network', status: null })));
  });

  test('every provider 429 → 429 with Retry-After', async () => {
    everywhere({ status: 429, headers: { 'retry-after': '7' } });
    const res = await post();
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.body.error).toMatchObject({ code: 429, message: 'Rate limit exceeded' });
    expect(attemptsOf(res)).toHaveLength(3);
    everywhere({ status: 429 });
    const noHeader = await post();
    expect(noHeader.status).toBe(429);
    expect(Number(noHeader.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  test('overloaded (529, or 503 saying overloaded) → 529', async () => {
    everywhere({ status: 529 });
    const res = await post();
    expect(res.status).toBe(529);
    expect(res.body.error).toEqual({
      code: 529,
      message: 'Provider returned error',
      metadata: expect.objectContaining({ attempts: expect.any(Array) }),
    });
    everywhere({ status: 503, body: { error: { message: 'Model is overloaded, try later' } } });
    const overloaded = await post();
    expect(overloaded.status).toBe(529);
    expect(attemptsOf(overloaded)).toEqual(ALL.map((provider) => ({ provider, outcome: 'overloaded', status: 503 })));
  });

  test('a hanging provider times out per attempt and the next one answers', async () => {
    h.fleet.fakes.deepinfra!.setSticky({ hang: true });
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('Nebius AI Studio');
  });

  test('slow but within the attempt timeout is fine', async () => {
    h.fleet.fakes.deepinfra!.setSticky({ latencyMs: 50 });
    expect((await post()).body.provider).toBe('DeepInfra');
  });

  test('every provider hangs → 524 (per-attempt timeouts)', async () => {
    everywhere({ hang: true });
    const res = await post({ provider: { order: ['deepinfra', 'nebius'], allow_fallbacks: false } });
    expect(res.status).toBe(524);
    expect(res.body.error.message).toBe('Request timed out. Please try again later.');
    expect(attemptsOf(res)).toEqual([
      { provider: 'deepinfra', outcome: 'timeout', status: null },
      { provider: 'nebius', outcome: 'timeout', status: null },
    ]);
  });

  test('the overall deadline stops the fallback loop before every candidate is tried', async () => {
    everywhere({ hang: true });
    const upstream = { ...FAST_UPSTREAM, attemptTimeoutMs: 400, deadlineMs: 600 };
    const tight = await gatewayApp(h.db, h.kv, { providers: h.fleet.overrides.providers, upstream }, () => h.clock.now);
    try {
      const res = await request(tight.app)
        .post('/api/v1/embeddings')
        .set('Authorization', `Bearer ${h.key}`)
        .send({ model: BGE, input: 'x' });
      expect(res.status).toBe(524);
      expect(attemptsOf(res).map((a) => (a as { provider: string }).provider)).toEqual(['deepinfra', 'nebius']);
      expect(h.fleet.fakes.together!.calls).toHaveLength(0);
    } finally {
      await tight.deps.routing.close();
    }
  });

  test.each([400, 422])('upstream %i caused by the request → 400 at once, no fallback', async (status) => {
    h.fleet.fakes.deepinfra!.setSticky({ status, body: { error: { message: 'input too long' } } });
    const res = await post();
    expect(res.status).toBe(400);
    expect(attemptsOf(res)).toEqual([{ provider: 'deepinfra', outcome: 'client', status }]);
    expect(h.fleet.fakes.nebius!.calls).toHaveLength(0);
  });

  test('the last failure decides: timeout after server errors → 524', async () => {
    h.fleet.fakes.deepinfra!.setSticky({ status: 500 });
    h.fleet.fakes.nebius!.setSticky({ status: 500 });
    h.fleet.fakes.together!.setSticky({ hang: true });
    expect((await post()).status).toBe(524);
  });

  test('upstream metrics: requests by outcome, latency, fallbacks, tokens and cost', async () => {
    h.fleet.fakes.deepinfra!.queue({ status: 500 });
    await post();
    const text = await h.gw.deps.metrics.registry.metrics();
    expect(text).toMatch(
      /switchyard_upstream_requests_total\{provider="deepinfra",model="baai\/bge-m3",outcome="server"\} [1-9]/,
    );
    expect(text).toMatch(
      /switchyard_upstream_requests_total\{provider="nebius",model="baai\/bge-m3",outcome="ok"\} [1-9]/,
    );
    expect(text).toMatch(/switchyard_upstream_fallbacks_total\{provider="deepinfra",model="baai\/bge-m3"\} [1-9]/);
    expect(text).toMatch(
      /switchyard_upstream_request_duration_seconds_count\{provider="nebius",model="baai\/bge-m3"\} [1-9]/,
    );
    expect(text).toMatch(/switchyard_gateway_overhead_seconds_count\{route="\/api\/v1\/embeddings"\} [1-9]/);
    expect(text).toMatch(/switchyard_embeddings_tokens_total\{provider="nebius",model="baai\/bge-m3"\} [1-9]/);
    expect(text).toMatch(/switchyard_embeddings_cost_usd_total\{provider="nebius",model="baai\/bge-m3"\} \d/);
  });
});

describe.each(KVS)('circuit breaker through HTTP on $name', (kvKind) => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      kv: await kvKind.open(),
      overrides: { breaker: { failureThreshold: 2, cooldownMs: 10_000 } },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  const post = () => h.post({ model: BGE, input: 'hello' });

  test('consecutive failures open the circuit; after the cooldown one probe decides', async () => {
    const deepinfra = h.fleet.fakes.deepinfra!;
    deepinfra.setSticky({ status: 500 });
    for (let i = 0; i < 2; i++) expect((await post()).body.provider).toBe('Nebius AI Studio');
    expect(deepinfra.calls).toHaveLength(2);
    // open: skipped without a call
    expect((await post()).body.provider).toBe('Nebius AI Studio');
    expect(deepinfra.calls).toHaveLength(2);
    expect(await h.gw.deps.metrics.registry.metrics()).toMatch(
      /switchyard_circuit_state\{provider="deepinfra",model="baai\/bge-m3"\} 2/,
    );
    // half-open after the cooldown: one probe, which fails → open again
    h.clock.now += 10_001;
    expect((await post()).body.provider).toBe('Nebius AI Studio');
    expect(deepinfra.calls).toHaveLength(3);
    expect((await post()).body.provider).toBe('Nebius AI Studio');
    expect(deepinfra.calls).toHaveLength(3);
    // next cooldown: the probe succeeds → closed
    deepinfra.setSticky(null);
    h.clock.now += 10_001;
    expect((await post()).body.provider).toBe('DeepInfra');
    expect((await post()).body.provider).toBe('DeepInfra');
    expect(deepinfra.calls).toHaveLength(5);
    expect(await h.gw.deps.metrics.registry.metrics()).toMatch(
      /switchyard_circuit_state\{provider="deepinfra",model="baai\/bge-m3"\} 0/,
    );
  });

  test('every circuit open → 503 without calling anyone', async () => {
    for (const s of ALL) h.fleet.fakes[s]!.setSticky({ status: 500 });
    for (let i = 0; i < 2; i++) expect((await post()).status).toBe(502);
    for (const s of ALL) h.fleet.fakes[s]!.calls.length = 0;
    const res = await post();
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 503, message: 'Service temporarily unavailable' });
    for (const s of ALL) expect(h.fleet.fakes[s]!.calls).toHaveLength(0);
  });

  test('a second replica on the same Kv sees the same circuits', async () => {
    const second = await gatewayApp(
      h.db,
      h.kv,
      { providers: h.fleet.overrides.providers, breaker: { failureThreshold: 2, cooldownMs: 10_000 } },
      () => h.clock.now,
    );
    const res = await request(second.app)
      .post('/api/v1/embeddings')
      .set('Authorization', `Bearer ${h.key}`)
      .send({ model: BGE, input: 'x' });
    expect(res.status).toBe(503);
    await second.deps.routing.close();
  });
});

describe.each(KVS)('circuits and tenants through HTTP on $name', (kvKind) => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      kv: await kvKind.open(),
      overrides: { breaker: { failureThreshold: 2, cooldownMs: 10_000 } },
    });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => h.fleet.resetAll());

  /** An inference key of a new organization. */
  async function tenant(name: string): Promise<string> {
    const org = await h.db.transaction((tx) => provisionOrg(tx, name));
    return (await createInferenceKey({ app: h.gw.app, mgmtKey: org.secret })).secret;
  }
  const postAs = (secret: string, model: string) =>
    request(h.gw.app)
      .post('/api/v1/embeddings')
      .set('Authorization', `Bearer ${secret}`)
      .send({ model, input: 'hello' });
  const MODEL = 'openai/text-embedding-3-small';

  test("one organization's failures open its own circuit, never another organization's", async () => {
    const [a, b] = [await tenant('A'), await tenant('B')];
    const openai = h.fleet.fakes.openai!;
    openai.setSticky({ status: 500 });
    for (let i = 0; i < 2; i++) expect((await postAs(a, MODEL)).status).toBe(502);
    expect((await postAs(a, MODEL)).status).toBe(503); // A's own circuit is open
    expect(openai.calls).toHaveLength(2);
    openai.setSticky(null);
    const res = await postAs(b, MODEL);
    expect(res.status).toBe(200);
    expect(openai.calls).toHaveLength(3);
    expect((await postAs(a, MODEL)).status).toBe(503); // still A's until its cooldown
  });

  test('a streak of failures from two organizations opens the circuit for everyone', async () => {
    const [a, b, c] = [await tenant('A2'), await tenant('B2'), await tenant('C2')];
    const voyage = h.fleet.fakes.voyage!;
    const model = 'voyage/voyage-3.5';
    voyage.setSticky({ status: 500 });
    expect((await postAs(a, model)).status).toBe(502);
    expect((await postAs(b, model)).status).toBe(502);
    voyage.setSticky(null);
    voyage.calls.length = 0;
    const res = await postAs(c, model);
    expect(res.status).toBe(503);
    expect(voyage.calls).toHaveLength(0);
    // after the cooldown one probe decides for everyone
    h.clock.now += 10_001;
    expect((await postAs(c, model)).status).toBe(200);
    expect((await postAs(a, model)).status).toBe(200);
  });

  test("a success from another organization ends a tenant's streak on the shared circuit", async () => {
    const [a, b, c] = [await tenant('A3'), await tenant('B3'), await tenant('C3')];
    const cohere = h.fleet.fakes.cohere!;
    const model = 'cohere/embed-v4.0';
    cohere.setSticky({ status: 500 });
    expect((await postAs(a, model)).status).toBe(502);
    cohere.setSticky(null);
    expect((await postAs(b, model)).status).toBe(200);
    cohere.setSticky({ status: 500 });
    expect((await postAs(c, model)).status).toBe(502);
    cohere.setSticky(null);
    expect((await postAs(b, model)).status).toBe(200);
  });
});
