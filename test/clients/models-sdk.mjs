// Drives the official @openrouter/sdk's `models.list` against a running Switchyard (SERVER_URL,
// API_KEY in the environment): the default list (chat models), `outputModalities: 'all'` (both
// kinds) and a filtered call. Each answer is parsed by the SDK's own zod schema, so a field the
// gateway leaves out or types wrongly fails the call. Prints one JSON object.
import process from 'node:process';
import { OpenRouter } from '@openrouter/sdk';

const or = new OpenRouter({
  apiKey: process.env.API_KEY,
  serverURL: process.env.SERVER_URL,
  retryConfig: { strategy: 'none' },
});
const errorOf = (e) => ({
  name: e?.constructor?.name,
  status: e?.statusCode,
  message: String(e?.message).slice(0, 300),
  issues: e?.cause?.issues?.map((i) => `${i.path.join('.')}: ${i.message}`).slice(0, 40),
});
const calls = {
  chat: () => or.models.list({}),
  all: () => or.models.list({ outputModalities: 'all' }),
  tools: () => or.models.list({ supportedParameters: 'tools,response_format', providers: 'groq' }),
};
const out = {};
for (const [name, call] of Object.entries(calls)) {
  try {
    const page = await call();
    out[name] = page.result ?? page;
  } catch (e) {
    out[name] = { error: errorOf(e) };
  }
}
process.stdout.write(JSON.stringify(out));
