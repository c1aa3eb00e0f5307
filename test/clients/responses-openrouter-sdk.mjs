// Drives @openrouter/sdk's `responses.send` against a running Switchyard (SERVER_URL, API_KEY in the
// environment), whole and streamed, over an OpenAI-format and an Anthropic-format upstream. The SDK
// parses the answer and every stream event with its own zod schemas, so a field the gateway leaves
// out or types wrongly fails the call. Prints one JSON object: each call's result or error.
import process from 'node:process';
import { OpenRouter } from '@openrouter/sdk';

const or = new OpenRouter({
  apiKey: process.env.API_KEY,
  serverURL: process.env.SERVER_URL,
  retryConfig: { strategy: 'none' },
});
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
  issues: issuesOf(e?.cause?.issues ?? e?.issues).slice(0, 40),
});

async function eventsOf(stream) {
  const out = [];
  for await (const event of stream) out.push(event);
  return out;
}

const calls = {
  plain: () =>
    or.responses.send({ responsesRequest: { model: 'openai/gpt-4.1-mini', input: 'hello from openrouter' } }),
  anthropic: () =>
    or.responses.send({
      responsesRequest: { model: 'anthropic/claude-sonnet-4', instructions: 'be brief', input: 'hello claude' },
    }),
  stream: async () =>
    eventsOf(
      await or.responses.send({
        responsesRequest: { model: 'openai/gpt-4.1-mini', input: 'stream it please', stream: true },
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
process.stdout.write(JSON.stringify(out));
