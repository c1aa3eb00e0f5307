/**
 * Sticky sessions through HTTP: a request with `session_id` (or `x-session-id`) goes first to the
 * endpoint that last answered its session, while that endpoint answers; a new session, a request
 * without one, another organization's session of the same id and a request with `provider.order`
 * keep the normal order; a failing endpoint moves the session; the Messages and Responses doors
 * stick the same way; a Kv fault costs the stickiness, never the request. On Redis when the tests
 * have it, else on the in-process store. The model's endpoints by price: DeepInfra (the normal
 * first), Groq, Together.
 */
import request from 'supertest';
import type { Kv, KvArg, KvScript } from '../../src/kv/kv';
import { provisionOrg } from '../../src/orgs/provision';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { bearer, createInferenceKey } from '../helpers/gateway';
import { KVS } from '../helpers/services';

const MODEL = 'meta-llama/llama-3.1-8b-instruct';
const KV = KVS[KVS.length - 1]!;

/** `inner`, except that the affinity scripts fail while `down.on` (Redis unreachable for them). */
function faultable(inner: Kv, down: { on: boolean }): Kv {
  return {
    kind: inner.kind,
    prefix: inner.prefix,
    run: <R>(script: KvScript<R>, keys: string[], args: KvArg[]) =>
      down.on && script.name.startsWith('session_affinity')
        ? Promise.reject(new Error('connect ECONNREFUSED (test)'))
        : inner.run(script, keys, args),
    publish: (channel, message) => inner.publish(channel, message),
    subscribe: (channel, handler) => inner.subscribe(channel, handler),
    onMessagesMissed: (handler) => inner.onMessagesMissed(handler),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

describe(`sticky sessions (${KV.name})`, () => {
  let h: GatewayHarness;
  let otherOrgKey: string;
  const kvDown = { on: false };
  let sessions = 0;
  /** A session id no other test uses. */
  const newSession = () => `sess-${++sessions}-${Date.now()}`;

  beforeAll(async () => {
    h = await startGatewayHarness({
      kv: faultable(await KV.open(), kvDown),
      overrides: { chat: { attemptTimeoutMs: 2000, deadlineMs: 5000 }, breaker: { failureThreshold: 1000 } },
    });
    const other = await h.db.transaction((tx) => provisionOrg(tx, 'Other Org'));
    otherOrgKey = (await createInferenceKey({ app: h.gw.app, mgmtKey: other.secret })).secret;
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.fleet.resetAll();
    kvDown.on = false;
  });

  /** POST /chat/completions; resolves with the provider that answered, once the gateway's bookkeeping (the affinity write) is done. */
  async function chat(body: Record<string, unknown> = {}, headers: Record<string, string> = {}, key = h.key) {
    const res = await request(h.gw.app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(key))
      .set(headers)
      .send({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], ...body });
    expect(res.status).toBe(200);
    await h.gw.deps.chat.drain();
    return res.body.provider as string;
  }

  /** A session whose first request fell back from DeepInfra (one failure) to Groq. */
  async function sessionOnGroq(session = newSession()): Promise<string> {
    h.fleet.fakes.deepinfra!.queue({ status: 500 });
    expect(await chat({ session_id: session })).toBe('Groq');
    return session;
  }

  test('a session stays on the endpoint that answered it while that endpoint answers, though a cheaper one is back', async () => {
    const session = await sessionOnGroq();
    expect(await chat({ session_id: session })).toBe('Groq');
    expect(await chat({ session_id: session })).toBe('Groq');
    // DeepInfra was tried once (the failure) and never again, although it answers now.
    expect(h.fleet.fakes.deepinfra!.calls).toHaveLength(1);
    expect(h.fleet.fakes.groq!.calls).toHaveLength(3);
  });

  test('a new session, a request without one and the same session id in another organization keep the normal order', async () => {
    const session = await sessionOnGroq();
    expect(await chat({ session_id: newSession() })).toBe('DeepInfra');
    expect(await chat()).toBe('DeepInfra');
    expect(await chat({ session_id: session }, {}, otherOrgKey)).toBe('DeepInfra');
    // The other organization's answer did not move this one's session.
    expect(await chat({ session_id: session })).toBe('Groq');
  });

  test('a failing endpoint moves the session, and the endpoint that answered instead becomes sticky', async () => {
    const session = await sessionOnGroq();
    h.fleet.fakes.groq!.queue({ status: 503 });
    h.fleet.fakes.deepinfra!.queue({ status: 500 });
    expect(await chat({ session_id: session })).toBe('Together');
    // Groq and DeepInfra answer again; the session stays on Together.
    expect(await chat({ session_id: session })).toBe('Together');
    expect(h.fleet.fakes.groq!.calls).toHaveLength(2);
  });

  test('x-session-id works the same; the body session_id wins over it', async () => {
    const session = newSession();
    h.fleet.fakes.deepinfra!.queue({ status: 500 });
    expect(await chat({}, { 'x-session-id': session })).toBe('Groq');
    expect(await chat({}, { 'x-session-id': session })).toBe('Groq');
    expect(await chat({ session_id: session })).toBe('Groq');
    expect(await chat({ session_id: newSession() }, { 'x-session-id': session })).toBe('DeepInfra');
  });

  test('provider.order wins over the session, and does not move it', async () => {
    const session = await sessionOnGroq();
    expect(await chat({ session_id: session, provider: { order: ['together'] } })).toBe('Together');
    expect(await chat({ session_id: session })).toBe('Groq');
  });

  test('the Responses door (whole) and the Messages door (streamed) stick the same way', async () => {
    const session = await sessionOnGroq();
    const responses = await request(h.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', bearer(h.key))
      .send({ model: MODEL, input: 'hello', session_id: session });
    expect(responses.status).toBe(200);
    const messages = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('Authorization', bearer(h.key))
      .set('x-session-id', session)
      .send({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hello' }] });
    expect(messages.status).toBe(200);
    expect(messages.text).toContain('message_stop');
    expect(h.fleet.fakes.groq!.calls).toHaveLength(3);
    expect(h.fleet.fakes.deepinfra!.calls).toHaveLength(1);

    // A streamed first request makes its endpoint sticky too.
    const streamed = newSession();
    h.fleet.fakes.deepinfra!.queue({ status: 500 });
    const first = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('Authorization', bearer(h.key))
      .send({
        model: MODEL,
        max_tokens: 64,
        stream: true,
        session_id: streamed,
        messages: [{ role: 'user', content: 'hi' }],
      });
    expect(first.status).toBe(200);
    await h.gw.deps.chat.drain();
    expect(await chat({ session_id: streamed })).toBe('Groq');
  });

  test('with the store unreachable a session request is answered in the normal order, and stickiness returns with the store', async () => {
    const session = await sessionOnGroq();
    kvDown.on = true;
    expect(await chat({ session_id: session })).toBe('DeepInfra');
    h.fleet.fakes.deepinfra!.queue({ status: 500 });
    expect(await chat({ session_id: newSession() })).toBe('Groq');
    kvDown.on = false;
    expect(await chat({ session_id: session })).toBe('Groq');
  });
});
