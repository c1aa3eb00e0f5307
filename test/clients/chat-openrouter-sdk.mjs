// Drives the official @openrouter/sdk's `chat.send` against a running Switchyard (SERVER_URL,
// API_KEY in the environment), whole and streamed: a plain answer with provider preferences, a
// tool-call round trip, `responseFormat` json_schema, and streams from an OpenAI-compatible and an
// Anthropic upstream. Whole answers are parsed by the SDK's own zod schema (which requires
// `system_fingerprint`), stream chunks by its chunk schema, so a field the gateway leaves out or
// types wrongly fails the call. Prints one JSON object: each call's result or error.
import process from 'node:process';
import { OpenRouter } from '@openrouter/sdk';

const or = new OpenRouter({
  apiKey: process.env.API_KEY,
  serverURL: process.env.SERVER_URL,
  retryConfig: { strategy: 'none' },
});
/** A zod issue list flattened: a union's failure lists each branch's issues. */
const issuesOf = (issues, at = []) =>
  (issues ?? []).flatMap((i) =>
    i.code === 'invalid_union' && i.errors?.length
      ? i.errors.flatMap((branch) => issuesOf(branch, [...at, ...i.path]))
      : [`${[...at, ...i.path].join('.')}: ${i.message}`],
  );
const errorOf = (e) => ({
  name: e?.constructor?.name,
  status: e?.statusCode,
  message: String(e?.message).slice(0, 300),
  // Which fields the SDK's schema refused (a stream chunk's ZodError carries its issues itself).
  issues: issuesOf(e?.cause?.issues ?? e?.issues).slice(0, 40),
});
const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const weather = [
  {
    type: 'function',
    function: {
      name: 'weather',
      description: 'The weather in a place',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
    },
  },
];

/** Every chunk of a streamed answer, parsed by the SDK. */
async function chunksOf(stream) {
  const out = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

const calls = {
  plain: () =>
    or.chat.send({
      chatRequest: {
        model: LLAMA,
        messages: [{ role: 'user', content: 'hello from openrouter' }],
        provider: { order: ['groq'], allowFallbacks: false },
      },
    }),
  tools: async () => {
    const messages = [{ role: 'user', content: 'weather in Rome' }];
    const first = await or.chat.send({ chatRequest: { model: LLAMA, messages, tools: weather, toolChoice: 'auto' } });
    const call = first.choices[0].message.toolCalls[0];
    const second = await or.chat.send({
      chatRequest: {
        model: LLAMA,
        tools: weather,
        messages: [...messages, first.choices[0].message, { role: 'tool', toolCallId: call.id, content: 'warm' }],
      },
    });
    return { first, second };
  },
  json: () =>
    or.chat.send({
      chatRequest: {
        model: 'openai/gpt-4o',
        messages: [{ role: 'user', content: 'as json' }],
        responseFormat: {
          type: 'json_schema',
          jsonSchema: {
            name: 'echo',
            strict: true,
            schema: { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] },
          },
        },
      },
    }),
  stream: async () =>
    chunksOf(
      await or.chat.send({
        chatRequest: {
          model: LLAMA,
          messages: [{ role: 'user', content: 'stream it please' }],
          stream: true,
          streamOptions: { includeUsage: true },
        },
      }),
    ),
  anthropicStream: async () =>
    chunksOf(
      await or.chat.send({
        chatRequest: {
          model: 'anthropic/claude-3.5-haiku',
          maxTokens: 64,
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'stream from claude' },
          ],
          stream: true,
        },
      }),
    ),
  // Reasoning as the SDK models it: `reasoning` in, `message.reasoning` / `reasoningDetails` out.
  reasoning: () =>
    or.chat.send({
      chatRequest: {
        model: 'anthropic/claude-sonnet-4.5',
        maxTokens: 4000,
        reasoning: { effort: 'medium' },
        messages: [{ role: 'user', content: 'think it over' }],
      },
    }),
  reasoningStream: async () =>
    chunksOf(
      await or.chat.send({
        chatRequest: {
          model: 'anthropic/claude-sonnet-4.5',
          maxTokens: 4000,
          reasoning: { effort: 'medium' },
          messages: [{ role: 'user', content: 'think it over' }],
          stream: true,
        },
      }),
    ),
};
const out = {};
for (const [name, call] of Object.entries(calls)) {
  try {
    out[name] = await call();
  } catch (e) {
    out[name] = { error: errorOf(e) };
  }
}
try {
  await or.chat.send({ chatRequest: { model: 'nobody/nothing', messages: [{ role: 'user', content: 'x' }] } });
  out.notFound = 'no error';
} catch (e) {
  out.notFound = { name: e.constructor.name, statusCode: e.statusCode };
}
process.stdout.write(JSON.stringify(out));
