/**
 * Body sizes agents send (issue 60 item 5): the inference routes take JSON bodies up to
 * `server.inferenceBodyLimitBytes` (32 MiB), a 20 MB turn of screenshots included, while the
 * management routes keep the small limit; and large bodies are bounded together per replica
 * (`server.inflightBodyBytes`): one that does not fit while others are being served is a 503
 * with Retry-After, and the budget comes back when they end.
 */
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { bearer } from '../helpers/gateway';

const MINI = 'openai/gpt-4o-mini';
const MiB = 1024 * 1024;

/** A chat turn of `images` screenshots of about `eachBytes` base64 each (what an agent attaches). */
function turnWithImages(images: number, eachBytes: number) {
  const data = 'A'.repeat(eachBytes);
  return {
    model: MINI,
    max_tokens: 10,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what changed between these screenshots?' },
          ...Array.from({ length: images }, () => ({
            type: 'image_url',
            image_url: { url: `data:image/png;base64,${data}` },
          })),
        ],
      },
    ],
  };
}

describe('body limits', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness();
  });
  afterAll(() => h.close());

  test('a 20 MB turn is served on /chat/completions, and reaches the upstream whole', async () => {
    const body = turnWithImages(20, MiB);
    const res = await request(h.gw.app).post('/api/v1/chat/completions').set('Authorization', bearer(h.key)).send(body);
    expect(res.status).toBe(200);
    const sent = h.fleet.fakes.openai!.calls.at(-1)!.body as { messages: Array<{ content: unknown[] }> };
    expect(sent.messages[0]!.content).toHaveLength(21);
  });

  test('the same size on a management route is a 413, and nothing is created', async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/keys')
      .set('Authorization', bearer(h.gw.mgmtKey))
      .send({ name: 'x'.repeat(2 * MiB) });
    expect(res.status).toBe(413);
    const keys = await request(h.gw.app).get('/api/v1/keys').set('Authorization', bearer(h.gw.mgmtKey));
    expect(JSON.stringify(keys.body)).not.toContain('xxxxxxxx');
  });

  test('over the inference limit is a 413 in the door envelope', async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(h.key))
      .send(turnWithImages(33, MiB));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe(413);
  });
});

describe('large bodies are bounded together', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ overrides: { server: { inflightBodyBytes: 3 * MiB } } });
  });
  afterAll(() => h.close());

  test('a second 2 MB turn while the first is served is a 503 with Retry-After; after it, one is served again', async () => {
    let release!: () => void;
    let arrived!: () => void;
    const inUpstream = new Promise<void>((resolve) => (arrived = resolve));
    h.fleet.fakes.openai!.queue({ holdUntil: new Promise<void>((resolve) => (release = resolve)), arrived });
    const send = () =>
      request(h.gw.app)
        .post('/api/v1/chat/completions')
        .set('Authorization', bearer(h.key))
        .send(turnWithImages(2, MiB));
    const first = send().then((r) => r);
    await inUpstream;
    const second = await send();
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('1');
    // A small request is never held back by the budget.
    const small = await request(h.gw.app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(h.key))
      .send({ model: MINI, messages: [{ role: 'user', content: 'hi' }] });
    expect(small.status).toBe(200);
    release();
    expect((await first).status).toBe(200);
    expect((await send()).status).toBe(200);
  });
});
