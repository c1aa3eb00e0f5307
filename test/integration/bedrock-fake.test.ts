/**
 * The fake Bedrock Converse wire read by AWS's own `@aws-sdk/client-bedrock-runtime`: Converse and
 * ConverseStream (AWS event-stream framing) parse its answers (text, tool use, Claude's reasoning
 * with its signature, usage with cache reads), it accepts the SDK's SigV4 signatures and its
 * bearer token and refuses a bad signature, and its refusals reach the SDK as Bedrock's named
 * exceptions: so the fake speaks the wire as the SDK parses it.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { startFake, type FakeUpstream } from '../fakes/server';
import { bedrockChatWire, bedrockError, BEDROCK_SIGNATURE, BEDROCK_TOOL_ID, FAKE_AWS } from '../fakes/bedrock-wire';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFake(null, bedrockChatWire);
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** A client on the fake over HTTP/1.1 (the SDK's default handler for Bedrock is HTTP/2); no retries. */
function client(auth: 'sigv4' | 'bearer' | 'wrong-secret' = 'sigv4'): BedrockRuntimeClient {
  const common = {
    region: FAKE_AWS.region,
    endpoint: fake.origin,
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  };
  if (auth === 'bearer')
    return new BedrockRuntimeClient({
      ...common,
      token: { token: 'bedrock-api-key-1' },
      authSchemePreference: ['httpBearerAuth'],
    });
  const secretAccessKey = auth === 'wrong-secret' ? 'not-the-secret' : FAKE_AWS.secretAccessKey;
  return new BedrockRuntimeClient({
    ...common,
    credentials: { accessKeyId: FAKE_AWS.accessKeyId, secretAccessKey, sessionToken: FAKE_AWS.sessionToken },
  });
}

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const tools = {
  tools: [
    {
      toolSpec: {
        name: 'weather',
        inputSchema: { json: { type: 'object', properties: { text: { type: 'string' } } } },
      },
    },
  ],
};

async function collect(stream: AsyncIterable<ConverseStreamOutput> | undefined): Promise<ConverseStreamOutput[]> {
  const out: ConverseStreamOutput[] = [];
  for await (const e of stream ?? []) out.push(e);
  return out;
}

test('Converse, signed: the text, stop reason and usage (cache reads) as the SDK reads them; the path holds the encoded model id', async () => {
  const res = await client().send(
    new ConverseCommand({
      modelId: CLAUDE,
      system: [{ text: 'be brief' }, { cachePoint: { type: 'default' } }],
      messages: [{ role: 'user', content: [{ text: 'hello bedrock' }] }],
    }),
  );
  expect(res.output?.message?.content?.[0]?.text).toBe('echo: hello bedrock');
  expect(res.stopReason).toBe('end_turn');
  expect(res.usage).toMatchObject({ inputTokens: 2, outputTokens: 3, cacheReadInputTokens: 2 });
  const call = fake.calls[0]!;
  expect(call.path).toBe(`/model/${encodeURIComponent(CLAUDE)}/converse`);
  expect(String(call.headers.authorization)).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK00001\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
  );
  expect(call.headers['x-amz-security-token']).toBe(FAKE_AWS.sessionToken);
});

test('a bearer token (a Bedrock API key) is accepted', async () => {
  const res = await client('bearer').send(
    new ConverseCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }),
  );
  expect(res.output?.message?.content?.[0]?.text).toBe('echo: hi');
  expect(fake.calls[0]!.headers.authorization).toBe('Bearer bedrock-api-key-1');
});

test('a signature made with the wrong secret is refused with a 403 the SDK names', async () => {
  const err = await client('wrong-secret')
    .send(new ConverseCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }))
    .catch((e: unknown) => e as { name: string; $metadata: { httpStatusCode: number } });
  expect(err).toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
});

test('tool use, then its result: toolUse with an input object, then the result answered', async () => {
  const c = client();
  const first = await c.send(
    new ConverseCommand({
      modelId: CLAUDE,
      toolConfig: tools,
      messages: [{ role: 'user', content: [{ text: 'in Oslo' }] }],
    }),
  );
  expect(first.stopReason).toBe('tool_use');
  const use = first.output?.message?.content?.[0]?.toolUse;
  expect(use).toEqual({ toolUseId: BEDROCK_TOOL_ID, name: 'weather', input: { text: 'in Oslo' } });
  const second = await c.send(
    new ConverseCommand({
      modelId: CLAUDE,
      toolConfig: tools,
      messages: [
        { role: 'user', content: [{ text: 'in Oslo' }] },
        { role: 'assistant', content: [{ toolUse: use! }] },
        { role: 'user', content: [{ toolResult: { toolUseId: BEDROCK_TOOL_ID, content: [{ text: 'sunny' }] } }] },
      ],
    }),
  );
  expect(second.output?.message?.content?.[0]?.text).toBe('result: sunny');
});

test('Claude thinking: a reasoningContent block with its signature opens the answer', async () => {
  const res = await client().send(
    new ConverseCommand({
      modelId: CLAUDE,
      inferenceConfig: { maxTokens: 4096 },
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } },
      messages: [{ role: 'user', content: [{ text: 'why' }] }],
    }),
  );
  expect(res.output?.message?.content?.[0]?.reasoningContent?.reasoningText).toEqual({
    text: 'thinking about: why',
    signature: BEDROCK_SIGNATURE,
  });
  expect(res.output?.message?.content?.[1]?.text).toBe('echo: why');
});

test('ConverseStream: text deltas, the stop and the usage metadata, decoded from event-stream frames', async () => {
  const res = await client().send(
    new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'stream this' }] }] }),
  );
  const events = await collect(res.stream);
  const text = events.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('');
  expect(text).toBe('echo: stream this');
  expect(events.find((e) => e.messageStop)?.messageStop?.stopReason).toBe('end_turn');
  expect(events.find((e) => e.metadata)?.metadata?.usage).toMatchObject({ inputTokens: 2, outputTokens: 3 });
  expect(fake.calls[0]!.path).toMatch(/\/converse-stream$/);
});

test('ConverseStream: a tool call starts with its id and name and its input arrives in pieces', async () => {
  const res = await client().send(
    new ConverseStreamCommand({
      modelId: CLAUDE,
      toolConfig: tools,
      messages: [{ role: 'user', content: [{ text: 'x' }] }],
    }),
  );
  const events = await collect(res.stream);
  expect(events.find((e) => e.contentBlockStart)?.contentBlockStart?.start?.toolUse).toEqual({
    toolUseId: BEDROCK_TOOL_ID,
    name: 'weather',
  });
  const input = events.map((e) => e.contentBlockDelta?.delta?.toolUse?.input ?? '').join('');
  expect(JSON.parse(input)).toEqual({ text: 'x' });
});

test('an in-stream exception reaches the SDK as Bedrock names it', async () => {
  fake.queue({ errorAfterEvents: 2 });
  const res = await client().send(
    new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'one two three' }] }] }),
  );
  await expect(collect(res.stream)).rejects.toMatchObject({ name: 'ModelStreamErrorException' });
});

test('refusals and faults arrive as Bedrock exceptions: ValidationException, ThrottlingException', async () => {
  const c = client();
  const blank = await c
    .send(new ConverseCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: ' ' }] }] }))
    .catch((e: unknown) => e);
  expect(blank).toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
  fake.queue(bedrockError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'));
  const throttled = await c
    .send(new ConverseCommand({ modelId: CLAUDE, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }))
    .catch((e: unknown) => e);
  expect(throttled).toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 429 } });
});
