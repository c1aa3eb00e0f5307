// Drives the Vercel AI SDK (`ai`) through `@ai-sdk/openai-compatible` against a running Switchyard
// (SERVER_URL, API_KEY in the environment): `generateText` and `streamText`, each plain and with a
// tool the SDK executes itself (the call, its result sent back, the answer: a multi-step loop),
// and `generateText` on the Anthropic route. Prints one JSON object: each call's result or error.
import process from 'node:process';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const gateway = createOpenAICompatible({
  name: 'switchyard',
  baseURL: process.env.SERVER_URL,
  apiKey: process.env.API_KEY,
  includeUsage: true,
});
const tools = {
  weather: tool({
    description: 'The weather in a place',
    inputSchema: jsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
    execute: async ({ text }) => `mild in ${text.split(' ').at(-1)}`,
  }),
};

/** What the test reads of a finished generation (a generateText result or a streamText's settled promises). */
const summary = async (r) => ({
  text: await r.text,
  finishReason: await r.finishReason,
  usage: await r.usage,
  totalUsage: await r.totalUsage,
  response: { id: (await r.response).id, modelId: (await r.response).modelId },
  providerMetadata: await r.providerMetadata,
  steps: (await r.steps).map((s) => ({
    text: s.text,
    finishReason: s.finishReason,
    toolCalls: s.toolCalls.map((c) => ({ toolName: c.toolName, toolCallId: c.toolCallId, input: c.input })),
    toolResults: s.toolResults.map((t) => ({ toolName: t.toolName, output: t.output })),
    response: { id: s.response.id },
  })),
});

/** Run `streamText`, reading its text stream as an app would; the pieces and the summary. */
async function streamed(options) {
  const r = streamText({ ...options, maxRetries: 0, onError: () => undefined });
  const pieces = [];
  for await (const piece of r.textStream) pieces.push(piece);
  return { pieces, ...(await summary(r)) };
}

const calls = {
  generate: async () =>
    summary(
      await generateText({
        model: gateway('openai/gpt-4o-mini'),
        system: 'be brief',
        prompt: 'hello from the ai sdk',
        maxRetries: 0,
      }),
    ),
  generateTools: async () =>
    summary(
      await generateText({
        model: gateway('meta-llama/llama-3.3-70b-instruct'),
        prompt: 'weather in Porto',
        tools,
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      }),
    ),
  stream: () => streamed({ model: gateway('openai/gpt-4o-mini'), prompt: 'stream from the ai sdk' }),
  streamTools: () =>
    streamed({
      model: gateway('meta-llama/llama-3.3-70b-instruct'),
      prompt: 'weather in Braga',
      tools,
      stopWhen: stepCountIs(3),
    }),
  anthropic: async () =>
    summary(
      await generateText({
        model: gateway('anthropic/claude-3.5-haiku'),
        prompt: 'hello claude from the ai sdk',
        maxOutputTokens: 64,
        maxRetries: 0,
      }),
    ),
};
const out = {};
for (const [name, call] of Object.entries(calls)) {
  try {
    out[name] = await call();
  } catch (e) {
    out[name] = {
      error: { name: e?.constructor?.name, status: e?.statusCode, message: String(e?.message).slice(0, 500) },
    };
  }
}
process.stdout.write(JSON.stringify(out));
