/**
 * The fake Azure OpenAI upstream as the official `openai` package's `AzureOpenAI` client sees it:
 * chat whole and streamed and embeddings at deployment URLs with an `api-version` and `api-key`,
 * and Azure's refusals (wrong key, unknown deployment, missing API version, the content filter).
 * The gateway's Azure adapter is tested against this fake, so the fake must be what the SDK expects.
 */
import { AzureOpenAI, BadRequestError, NotFoundError, AuthenticationError } from 'openai';
import { startFake, type FakeUpstream } from '../fakes/server';
import { AZURE_FAKE, azureChatWire, contentFilterRefusal, FILTERED_VERDICT } from '../fakes/azure-wire';
import { openaiWire } from '../fakes/wires';

const API_VERSION = '2024-10-21';
let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFake(openaiWire, azureChatWire);
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const client = (deployment: string, apiKey = 'test-key-azure') =>
  new AzureOpenAI({ endpoint: fake.origin, apiKey, apiVersion: API_VERSION, deployment, maxRetries: 0 });

test('a whole chat answer at the deployment URL, with the api-key header and the api-version', async () => {
  const res = await client('gpt-4.1-mini').chat.completions.create({
    model: 'gpt-4.1-mini',
    messages: [{ role: 'user', content: 'hello azure' }],
  });
  expect(res.choices[0]!.message.content).toBe('echo: hello azure');
  expect(res.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 3 });
  const [call] = fake.calls;
  expect(call!.path).toBe(`/openai/deployments/gpt-4.1-mini/chat/completions?api-version=${API_VERSION}`);
  expect(call!.headers['api-key']).toBe('test-key-azure');
  // Azure's annotations are part of its answer.
  expect((res as unknown as { prompt_filter_results: unknown[] }).prompt_filter_results).toHaveLength(1);
});

test('a streamed answer: the prompt-filter event first, then the text and usage', async () => {
  const stream = await client('gpt-4o-mini').chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'stream me' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  expect(chunks[0]!.choices).toEqual([]);
  expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: stream me');
  expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 3 });
});

test('embeddings at the deployment URL', async () => {
  const res = await client('text-embedding-3-large').embeddings.create({
    model: 'text-embedding-3-large',
    input: ['abc', 'hello'],
  });
  expect(res.data.map((d) => d.embedding[0])).toEqual([3 / 8, 5 / 8]);
  expect(fake.calls[0]!.path).toBe(`/openai/deployments/text-embedding-3-large/embeddings?api-version=${API_VERSION}`);
});

test('a wrong key is 401, an unknown deployment 404 DeploymentNotFound, a missing api-version 404', async () => {
  const ask = (c: AzureOpenAI) =>
    c.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] });
  await expect(ask(client('gpt-4.1-mini', 'wrong'))).rejects.toBeInstanceOf(AuthenticationError);
  const missing = ask(client('no-such-deployment'));
  await expect(missing).rejects.toBeInstanceOf(NotFoundError);
  await expect(missing).rejects.toMatchObject({ code: 'DeploymentNotFound' });
  const res = await fetch(`${fake.origin}/openai/deployments/gpt-4.1-mini/chat/completions`, {
    method: 'POST',
    headers: { 'api-key': 'test-key-azure', 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(res.status).toBe(404);
});

test('a bearer token the fake was given is accepted in place of the key', async () => {
  AZURE_FAKE.tokens.add('entra-token-1');
  try {
    const c = new AzureOpenAI({
      endpoint: fake.origin,
      azureADTokenProvider: () => Promise.resolve('entra-token-1'),
      apiVersion: API_VERSION,
      deployment: 'gpt-4.1-mini',
      maxRetries: 0,
    });
    const res = await c.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'token' }] });
    expect(res.choices[0]!.message.content).toBe('echo: token');
    expect(fake.calls[0]!.headers.authorization).toBe('Bearer entra-token-1');
  } finally {
    AZURE_FAKE.tokens.delete('entra-token-1');
  }
});

test("the content filter's 400 is what the SDK reads as Azure's refusal", async () => {
  fake.queue(contentFilterRefusal());
  const err = (await client('gpt-4.1-mini')
    .chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'bad' }] })
    .catch((e: unknown) => e)) as BadRequestError;
  expect(err).toBeInstanceOf(BadRequestError);
  expect(err.code).toBe('content_filter');
  expect((err.error as { innererror: { content_filter_result: unknown } }).innererror.content_filter_result).toEqual(
    FILTERED_VERDICT,
  );
});
