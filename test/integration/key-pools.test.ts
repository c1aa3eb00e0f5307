/**
 * Key pools through HTTP (issue 59 item 5): OpenAI with three keys, one the upstream answers 401
 * and one 429 with `Retry-After`. A request moves to the healthy key within itself; the refused
 * key stays out and the rate-limited one rests until its `Retry-After` has passed (on the
 * injected clock), then takes its turn again. A second replica on the same Kv agrees without
 * being told by its own upstream, `/providers` and the metrics show each key by label and never
 * by value, and a pool whose every key rests answers 429 with the wait. On Redis when the tests
 * have it (two connections, one prefix), else on one in-process store.
 */
import request from 'supertest';
import { createMetricsApp } from '../../src/app';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import type { Fault } from '../fakes/server';
import { bearer } from '../helpers/gateway';
import { eventually } from '../helpers/eventually';
import { KVS, uniqueId } from '../helpers/services';

const KV = KVS[KVS.length - 1]!;
const MODEL = 'openai/gpt-4o-mini';
const SECRETS = ['sk-pool-a-0001', 'sk-pool-b-0002', 'sk-pool-c-0003'];

interface KeyReading {
  label: string;
  state: string;
  until: string | null;
  status: number | null;
}

/** What the OpenAI fake answers each key: the first refused, the second rate limited, the third fine. */
function answersByKey(overrides: Record<string, Fault | null> = {}) {
  const faults: Record<string, Fault | null> = {
    [SECRETS[0]!]: { status: 401, body: { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } } },
    [SECRETS[1]!]: {
      status: 429,
      headers: { 'retry-after': '30' },
      body: { error: { message: 'Rate limit reached' } },
    },
    [SECRETS[2]!]: null,
    ...overrides,
  };
  return (headers: Record<string, string | string[] | undefined>) => {
    const auth = String(headers.authorization ?? '').replace(/^Bearer /, '');
    return faults[auth] ?? null;
  };
}

const keysUsed = (h: GatewayHarness) =>
  h.fleet.fakes.openai!.calls.map((c) => String(c.headers.authorization).replace(/^Bearer /, ''));

/** One chat request, kept on OpenAI (the model has other providers, which would answer instead). */
async function chat(h: GatewayHarness) {
  return request(h.gw.app)
    .post('/api/v1/chat/completions')
    .set('Authorization', bearer(h.key))
    .send({
      model: MODEL,
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 5,
      provider: { only: ['openai'] },
    });
}

async function pool(h: GatewayHarness): Promise<KeyReading[]> {
  const res = await request(h.gw.app).get('/api/v1/providers').set('Authorization', bearer(h.key)).expect(200);
  expect(JSON.stringify(res.body)).not.toMatch(/sk-pool-/);
  const openai = (res.body.data as Array<{ slug: string; keys: KeyReading[] }>).find((p) => p.slug === 'openai')!;
  return openai.keys;
}

describe(`key pools (${KV.name})`, () => {
  const prefix = `t:${uniqueId()}:`;
  let a: GatewayHarness;
  let b: GatewayHarness;

  beforeAll(async () => {
    const providerExtras = { OPENAI: { apiKeys: SECRETS } };
    a = await startGatewayHarness({ kv: await KV.open(prefix), providerExtras });
    // The in-process store is one process's: the second replica shares the first's.
    b = await startGatewayHarness({ kv: KV.name === 'redis' ? await KV.open(prefix) : a.kv, providerExtras });
    await Promise.all([a.gw.deps.routing.keys.ready, b.gw.deps.routing.keys.ready]);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  test('a refused and a rate-limited key are left for the healthy one, within the request and after', async () => {
    a.fleet.fakes.openai!.decide = answersByKey();
    const first = await chat(a);
    expect(first.status).toBe(200);
    expect(keysUsed(a)).toEqual(SECRETS);
    for (let i = 0; i < 4; i++) expect((await chat(a)).status).toBe(200);
    expect(keysUsed(a).slice(3)).toEqual(Array(4).fill(SECRETS[2]));

    const readings = await pool(a);
    expect(readings.map((k) => [k.label, k.state, k.status])).toEqual([
      ['key-1', 'out', 401],
      ['key-2', 'resting', null],
      ['key-3', 'active', null],
    ]);
    expect(Date.parse(readings[1]!.until!)).toBe(a.clock.now + 30_000);

    const metrics = (await request(createMetricsApp(a.gw.deps)).get('/metrics').expect(200)).text;
    expect(metrics).toContain('switchyard_provider_key_state{provider="openai",key="key-1"} 2');
    expect(metrics).toContain('switchyard_provider_key_state{provider="openai",key="key-2"} 1');
    expect(metrics).toMatch(/switchyard_provider_key_refusals_total\{provider="openai",key="key-1",status="401"\} 1/);
    expect(metrics).not.toMatch(/sk-pool-/);
  });

  test('the second replica agrees: it sends only the healthy key, though its upstream never refused one', async () => {
    b.fleet.fakes.openai!.decide = answersByKey();
    await eventually(async () => expect((await pool(b)).map((k) => k.state)).toEqual(['out', 'resting', 'active']));
    for (let i = 0; i < 3; i++) expect((await chat(b)).status).toBe(200);
    expect(keysUsed(b)).toEqual(Array(3).fill(SECRETS[2]));
  });

  test('the rate-limited key comes back once its Retry-After has passed; the refused one stays out', async () => {
    a.fleet.resetAll();
    a.fleet.fakes.openai!.decide = answersByKey({ [SECRETS[1]!]: null });
    a.clock.now += 29_000;
    await chat(a);
    expect(keysUsed(a)).toEqual([SECRETS[2]]);
    a.clock.now += 1_000;
    for (let i = 0; i < 4; i++) expect((await chat(a)).status).toBe(200);
    expect(new Set(keysUsed(a).slice(1))).toEqual(new Set([SECRETS[1], SECRETS[2]]));
    expect(keysUsed(a)).not.toContain(SECRETS[0]);
    expect((await pool(a)).map((k) => k.state)).toEqual(['out', 'active', 'active']);
  });

  test('when every usable key is rate limited the client gets 429 with the shortest wait', async () => {
    a.fleet.resetAll();
    const limited: Fault = { status: 429, headers: { 'retry-after': '20' }, body: { error: { message: 'slow down' } } };
    a.fleet.fakes.openai!.decide = answersByKey({ [SECRETS[1]!]: limited, [SECRETS[2]!]: limited });
    const res = await chat(a);
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(20);
    // Only the two keys in the pool's turn were tried; the refused one never was.
    expect(keysUsed(a).sort()).toEqual([SECRETS[1], SECRETS[2]].sort());
    const again = await chat(a);
    expect(again.status).toBe(429);
    expect(keysUsed(a)).toHaveLength(2);
  });
});
