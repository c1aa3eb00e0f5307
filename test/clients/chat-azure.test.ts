/**
 * Issue 59 item 2: Azure OpenAI as a wire format, through the gateway with the official `openai`
 * client over the fake Azure upstream (test/fakes/azure-wire.ts). Whole and streamed answers with
 * usage and exact cost at Azure's prices, tools, images, reasoning; every fault before the first
 * byte and mid-stream; the content filter's 400 passed on with its verdict (never a 502, never a
 * second provider); a `content_filter` finish passed on and billed once; fallback from Azure to
 * Anthropic and back; the v1 API; an Entra token file re-read after it changes; embeddings; the
 * Messages and Responses doors. A test catalog adds two Azure providers on a second fake: one on
 * the v1 API (`azure-v1`) and one signing in with an Entra token file (`azure-sso`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import request from 'supertest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { startFake, type FakeUpstream } from '../fakes/server';
import {
  AZURE_FAKE,
  azureChatWire,
  contentFilterRefusal,
  filteredAnswer,
  filteredStream,
  FILTERED_VERDICT,
} from '../fakes/azure-wire';
import { openaiWire } from '../fakes/wires';
import { bearer } from '../helpers/gateway';
import { drain, recordedOnce, weather, type Extensions } from '../helpers/openai-client';
import { tempDir } from '../helpers/temp-dir';
import { fromRoot } from '../../src/paths';
import { DEFAULT_AZURE_API_VERSION } from '../../src/catalog/load';
import type { UsageEvent } from '../../src/usage/types';

const MINI = 'openai/gpt-4.1-mini';
const GPT5_MINI = 'openai/gpt-5-mini';
const HAIKU = 'anthropic/claude-3.5-haiku';
const EMBED = 'openai/text-embedding-3-large';
/** Azure's Global prices of config/chat-models.yaml and models.yaml, per token. */
const MINI_PRICE = { prompt: 0.4e-6, completion: 1.6e-6 };
const GPT5_MINI_PRICE = { prompt: 0.25e-6, completion: 2e-6 };
const EMBED_PRICE = 0.13e-6;
const ONLY_AZURE = { only: ['azure'] };

/** The shipped catalog plus `azure-v1` and `azure-sso`, serving gpt-4.1-mini and text-embedding-3-large. */
function testCatalog(): { providersFile: string; chatModelsFile: string; modelsFile: string } {
  const dir = tempDir('sy-azure-');
  const read = (name: string) => parseYaml(readFileSync(fromRoot('config', name), 'utf8')) as Record<string, unknown>;
  const providers = read('providers.yaml') as { providers: Array<Record<string, unknown>> };
  const placeholder = 'https://placeholder.openai.azure.com/openai';
  providers.providers.push(
    { slug: 'azure-v1', name: 'Azure OpenAI v1', adapter: 'azure', base_url: placeholder, api_style: 'v1' },
    { slug: 'azure-sso', name: 'Azure OpenAI Entra', adapter: 'azure', base_url: placeholder },
  );
  const withCopies = (file: string, model: string, slugs: string[]) => {
    const doc = read(file) as { models: Array<{ id: string; endpoints: Array<Record<string, unknown>> }> };
    const m = doc.models.find((x) => x.id === model)!;
    const azure = m.endpoints.find((e) => e.provider === 'azure')!;
    for (const slug of slugs) m.endpoints.push({ ...azure, provider: slug });
    writeFileSync(path.join(dir, file), toYaml(doc));
  };
  writeFileSync(path.join(dir, 'providers.yaml'), toYaml(providers));
  withCopies('chat-models.yaml', MINI, ['azure-v1', 'azure-sso']);
  withCopies('models.yaml', EMBED, ['azure-v1']);
  return {
    providersFile: path.join(dir, 'providers.yaml'),
    chatModelsFile: path.join(dir, 'chat-models.yaml'),
    modelsFile: path.join(dir, 'models.yaml'),
  };
}

let h: GatewayHarness;
let client: OpenAI;
/** The second Azure resource (the v1 and Entra providers). */
let second: FakeUpstream;
let tokenFile: string;
beforeAll(async () => {
  second = await startFake(openaiWire, azureChatWire);
  tokenFile = path.join(tempDir('sy-entra-'), 'token');
  writeFileSync(tokenFile, 'entra-token-one\n');
  AZURE_FAKE.tokens.add('entra-token-one').add('entra-token-rotated');
  const base = `${second.origin}/openai`;
  h = await startGatewayHarness({
    listen: true,
    overrides: {
      catalog: testCatalog(),
      providers: {
        AZURE_V1: { baseUrl: base, apiKey: 'test-key-azure' },
        AZURE_SSO: { baseUrl: base, entraTokenFile: tokenFile },
      },
    },
  });
  client = new OpenAI({ apiKey: h.key, baseURL: h.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  AZURE_FAKE.tokens.clear();
  await h.close();
  await second.close();
});
beforeEach(() => {
  h.fleet.resetAll();
  second.reset();
  h.events.length = 0;
  // Past the breaker's cooldown: a fault test never leaves the next one an open circuit.
  h.clock.now += 60_000;
});

const azure = () => h.fleet.fakes.azure!;

/** The one usage event recorded for generation `id`. */
const recorded = (id: string): UsageEvent => recordedOnce(h.events, id);

/** The chat door's answer to `body` as raw status, text and parsed JSON (or SSE data lines). */
async function post(body: Record<string, unknown>): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${h.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const sseData = (text: string) =>
  text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));

/** A body for gpt-4.1-mini on the shipped Azure provider. */
const chat = (content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: MINI,
  messages: [{ role: 'user', content }],
  provider: ONLY_AZURE,
  ...extra,
});

/** The client's whole answer to `body` (the gateway's `provider`, `models` ride along as extra members). */
const create = (body: Record<string, unknown>) =>
  client.chat.completions.create(body as never) as Promise<ChatCompletion>;
/** The client's stream for `body`. */
const createStream = (body: Record<string, unknown>) =>
  client.chat.completions.create({ ...body, stream: true } as never) as unknown as Promise<
    AsyncIterable<ChatCompletionChunk>
  >;

describe('answers through Azure', () => {
  test('a whole answer: the deployment URL, api-version and api-key; usage and cost at Azure’s price; no Azure annotations', async () => {
    const res = await create(chat('hello from azure'));
    const ext = res as unknown as Extensions;
    expect(res.choices[0]).toMatchObject({ message: { content: 'echo: hello from azure' }, finish_reason: 'stop' });
    expect(ext.provider).toBe('Azure OpenAI');
    expect(res.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4 });
    expect(ext.usage.cost).toBeCloseTo(3 * MINI_PRICE.prompt + 4 * MINI_PRICE.completion, 12);
    expect(recorded(res.id)).toMatchObject({ provider: 'Azure OpenAI', costUsd: ext.usage.cost, streamed: false });
    const [call] = azure().calls;
    expect(call!.path).toBe(
      `/openai/deployments/gpt-4.1-mini/chat/completions?api-version=${DEFAULT_AZURE_API_VERSION}`,
    );
    expect(call!.headers['api-key']).toBe('test-key-azure');
    expect(call!.headers.authorization).toBeUndefined();
    expect(call!.body.model).toBe('gpt-4.1-mini');
    // Azure's filter annotations are left out, whole as streamed.
    expect(JSON.stringify(res)).not.toMatch(/filter_results/);
  });

  test('a stream: every chunk carries the generation id, usage with cost last, no Azure annotations', async () => {
    const chunks = await drain(await createStream(chat('stream from azure')));
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: stream from azure');
    const last = chunks.at(-1)!;
    const usage = last.usage as unknown as Extensions['usage'];
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4 });
    expect(usage.cost).toBeCloseTo(3 * MINI_PRICE.prompt + 4 * MINI_PRICE.completion, 12);
    // Azure's prompt-filter event (empty id and model) is dropped, so every chunk is relabelled.
    expect(chunks.map((c) => [c.id, c.model])).toEqual(chunks.map(() => [last.id, MINI]));
    expect(JSON.stringify(chunks)).not.toMatch(/filter_results/);
    expect(azure().calls[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(recorded(last.id)).toMatchObject({ provider: 'Azure OpenAI', streamed: true, costUsd: usage.cost });
  });

  test('a tool round trip', async () => {
    const messages = [{ role: 'user' as const, content: 'weather in Oslo' }];
    const first = await create({ ...chat('x'), messages, tools: weather });
    const call = first.choices[0]!.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(JSON.parse(call.function.arguments)).toEqual({ text: 'weather in Oslo' });
    const second = await create({
      ...chat('x'),
      tools: weather,
      messages: [...messages, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'rain' }],
    });
    expect(second.choices[0]).toMatchObject({ message: { content: 'result: rain' }, finish_reason: 'stop' });
    expect(azure().calls).toHaveLength(2);
  });

  test('an image reaches the deployment as the client sent it', async () => {
    const url = 'data:image/png;base64,iVBORw0KGgo=';
    const res = await create({
      ...chat('x'),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('echo: what is this');
    expect(JSON.stringify(azure().calls[0]!.body.messages)).toContain(url);
  });

  test('reasoning_effort reaches a reasoning deployment; its reasoning tokens are in usage and billed', async () => {
    const res = await create({
      model: GPT5_MINI,
      messages: [{ role: 'user', content: 'think about it' }],
      reasoning_effort: 'low',
      provider: ONLY_AZURE,
    });
    const ext = res as unknown as Extensions;
    expect(azure().calls[0]!.body.reasoning_effort).toBe('low');
    expect(azure().calls[0]!.path).toContain('/deployments/gpt-5-mini/');
    expect(res.usage?.completion_tokens_details?.reasoning_tokens).toBe(4);
    const { prompt_tokens: p, completion_tokens: c } = ext.usage;
    expect(c).toBe(8);
    expect(ext.usage.cost).toBeCloseTo(p * GPT5_MINI_PRICE.prompt + c * GPT5_MINI_PRICE.completion, 12);
  });
});

describe('faults', () => {
  test.each([
    [{ status: 429, headers: { 'retry-after': '7' } }, 429],
    [{ status: 503 }, 502],
    [{ status: 500 }, 502],
    [{ status: 401 }, 502],
  ])('%o before the first byte → %i', async (fault, status) => {
    azure().queue(fault);
    const res = await post(chat('fault'));
    expect(res.status).toBe(status);
    if (status === 429) expect(res.headers.get('retry-after')).toBe('7');
    expect(azure().calls).toHaveLength(1);
    expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
  });

  test.each([
    ['a cut connection', { cutAfterEvents: 4 }],
    ['an error event', { errorAfterEvents: 4 }],
  ])('%s after the first content → the error chunk and [DONE]', async (_name, fault) => {
    azure().queue(fault);
    const res = await post(chat('one two three four five six', { stream: true }));
    expect(res.status).toBe(200);
    const data = sseData(res.text);
    expect(data.at(-1)).toBe('[DONE]');
    expect(JSON.parse(data.at(-2)!)).toMatchObject({ choices: [{ finish_reason: 'error' }] });
  });
});

describe('the content filter', () => {
  test.each([false, true])(
    "a prompt Azure's filter refuses (stream %s) → 400 with the verdict; no other provider, nothing billed",
    async (stream) => {
      azure().queue(contentFilterRefusal());
      const res = await post({
        model: MINI,
        models: [MINI, HAIKU],
        max_tokens: 50,
        messages: [{ role: 'user', content: 'something filtered' }],
        provider: { only: ['azure', 'anthropic'] },
        stream,
      });
      expect(res.status).toBe(400);
      const body = JSON.parse(res.text) as { error: { message: string; metadata: Record<string, unknown> } };
      expect(body.error.message).toBe("The provider's content filter refused the prompt");
      expect(body.error.metadata).toMatchObject({
        error_type: 'content_filter',
        provider_code: 400,
        content_filter: FILTERED_VERDICT,
        attempts: [{ provider: 'azure', outcome: 'client', status: 400 }],
      });
      // Nothing of Azure's text (its message, a policy name) is passed on.
      expect(res.text).not.toMatch(/content management policy|secret-policy|ResponsibleAI/);
      expect(azure().calls).toHaveLength(1);
      expect(h.fleet.fakes.anthropic!.calls).toHaveLength(0);
      expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
      expect(h.events.filter((e) => e.costUsd > 0)).toHaveLength(0);
    },
  );

  test('only the known categories and their verdicts are passed on', async () => {
    azure().queue(
      contentFilterRefusal({
        violence: { filtered: true, severity: 'high', note: 'a secret', extra: { deep: 1 } },
        made_up: { filtered: true },
        hate: { filtered: 'yes', severity: 'extreme' },
      }),
    );
    const res = await post(chat('filtered'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.metadata.content_filter).toEqual({
      violence: { filtered: true, severity: 'high' },
      hate: {},
    });
  });

  test('a completion the filter cut is an answer: finish_reason content_filter, billed once', async () => {
    azure().queue(filteredAnswer);
    const res = await create(chat('cut me'));
    expect(res.choices[0]!.finish_reason).toBe('content_filter');
    expect(JSON.stringify(res)).not.toMatch(/filter_results/);
    const ext = res as unknown as Extensions;
    expect(recorded(res.id)).toMatchObject({ finishReason: 'content_filter', costUsd: ext.usage.cost });
    expect(ext.usage.cost).toBeGreaterThan(0);
    expect(azure().calls).toHaveLength(1);

    azure().queue(filteredStream);
    const chunks = await drain(await createStream(chat('cut me too')));
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['content_filter']);
    expect(recorded(chunks.at(-1)!.id)).toMatchObject({ finishReason: 'content_filter', streamed: true });
  });
});

describe('fallback across formats', () => {
  const ask = (models: string[]) =>
    create({
      model: models[0],
      models,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'fall back' }],
      provider: { only: ['azure', 'anthropic'] },
    });

  test('Azure fails → Anthropic answers', async () => {
    azure().setSticky({ status: 500 });
    const res = await ask([MINI, HAIKU]);
    expect((res as unknown as Extensions).provider).toBe('Anthropic');
    expect(res.choices[0]!.message.content).toBe('echo: fall back');
    expect(azure().calls).toHaveLength(1);
  });

  test('Anthropic fails → Azure answers', async () => {
    h.fleet.fakes.anthropic!.setSticky({ status: 500 });
    const res = await ask([HAIKU, MINI]);
    expect((res as unknown as Extensions).provider).toBe('Azure OpenAI');
    expect(res.choices[0]!.message.content).toBe('echo: fall back');
    expect(recorded(res.id)).toMatchObject({ provider: 'Azure OpenAI', model: MINI });
  });
});

describe('configurations', () => {
  test('api_style v1: OpenAI’s paths under /openai/v1, the deployment as model, no api-version', async () => {
    const res = await create({ ...chat('v1 please'), provider: { only: ['azure-v1'] } });
    expect((res as unknown as Extensions).provider).toBe('Azure OpenAI v1');
    const [call] = second.calls;
    expect(call!.path).toBe('/openai/v1/chat/completions');
    expect(call!.body.model).toBe('gpt-4.1-mini');
    expect(call!.headers['api-key']).toBe('test-key-azure');

    const emb = await h.post({ model: EMBED, input: 'abc', provider: { only: ['azure-v1'] } });
    expect(emb.status).toBe(200);
    expect(second.calls[1]!.path).toBe('/openai/v1/embeddings');
    expect(second.calls[1]!.body.model).toBe('text-embedding-3-large');
  });

  test('an Entra token file: sent as the bearer, looked at again after a second, re-read once it changed', async () => {
    const ask = async () => {
      await create({ ...chat('entra'), provider: { only: ['azure-sso'] } });
      const call = second.calls.at(-1)!;
      expect(call.headers['api-key']).toBeUndefined();
      return call.headers.authorization;
    };
    expect(await ask()).toBe('Bearer entra-token-one');
    writeFileSync(tokenFile, 'entra-token-rotated\n');
    // Within the second since the last look, the file is not read again.
    expect(await ask()).toBe('Bearer entra-token-one');
    const now = Date.now();
    const later = jest.spyOn(Date, 'now').mockImplementation(() => now + 1500);
    try {
      expect(await ask()).toBe('Bearer entra-token-rotated');
    } finally {
      later.mockRestore();
    }
  });

  test('embeddings through Azure: the deployment URL, vectors, cost at Azure’s price', async () => {
    const res = await h.post({ model: EMBED, input: ['abc', 'hello'], provider: ONLY_AZURE });
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('Azure OpenAI');
    expect(res.body.data.map((d: { embedding: number[] }) => d.embedding[0])).toEqual([3 / 8, 5 / 8]);
    expect(res.body.usage.cost).toBeCloseTo(8 * EMBED_PRICE, 12);
    const [call] = azure().calls;
    expect(call!.path).toBe(
      `/openai/deployments/text-embedding-3-large/embeddings?api-version=${DEFAULT_AZURE_API_VERSION}`,
    );
    expect(call!.headers['api-key']).toBe('test-key-azure');
  });
});

test('GET /providers lists Azure with its endpoints and the attempts made on it', async () => {
  await create(chat('count me'));
  const data = (await request(h.gw.app).get('/api/v1/providers').set('Authorization', bearer(h.key)).expect(200)).body
    .data as Array<{ slug: string; name: string; endpoints: Array<{ model: string }>; recent: { attempts: number } }>;
  const listed = data.find((p) => p.slug === 'azure')!;
  expect(listed.name).toBe('Azure OpenAI');
  expect(listed.endpoints.map((e) => e.model)).toEqual(expect.arrayContaining([MINI, GPT5_MINI, EMBED]));
  expect(listed.recent.attempts).toBeGreaterThan(0);
});

describe('the other doors', () => {
  test('POST /messages: an Anthropic-shaped answer from an Azure deployment', async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('Authorization', bearer(h.key))
      .send({ model: MINI, max_tokens: 50, messages: [{ role: 'user', content: 'hi door' }], provider: ONLY_AZURE });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'echo: hi door' }] });
    expect(azure().calls).toHaveLength(1);
  });

  test('POST /responses: a Responses answer from an Azure deployment', async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', bearer(h.key))
      .send({ model: MINI, input: 'hi responses', provider: ONLY_AZURE });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body.output)).toContain('echo: hi responses');
    expect(azure().calls).toHaveLength(1);
  });
});
