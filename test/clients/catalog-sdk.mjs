// Drives the official @openrouter/sdk's read-only catalog calls against a running Switchyard
// (SERVER_URL, API_KEY, GENERATION_ID in the environment): `endpoints.list`, `providers.list` and
// `generations.getGeneration`. Each answer is parsed by the SDK's own zod schema, so a field the
// gateway leaves out or types wrongly fails the call. Prints one JSON object.
import process from 'node:process';
import { OpenRouter, HTTPClient } from '@openrouter/sdk';

const raw = [];
const httpClient = new HTTPClient();
httpClient.addHook('response', async (res) => {
  raw.push(await res.clone().text());
});
const or = new OpenRouter({
  apiKey: process.env.API_KEY,
  serverURL: process.env.SERVER_URL,
  retryConfig: { strategy: 'none' },
  httpClient,
});
const errorOf = (e) => ({
  name: e?.constructor?.name,
  status: e?.statusCode,
  message: String(e?.message).slice(0, 300),
  // A ResponseValidationError's zod issues: which fields the SDK's schema refused.
  issues: e?.cause?.issues?.map((i) => `${i.path.join('.')}: ${i.message}`).slice(0, 40),
});
const calls = {
  endpoints: () => or.endpoints.list({ author: 'baai', slug: 'bge-m3' }),
  providers: () => or.providers.list(),
  generation: () => or.generations.getGeneration({ id: process.env.GENERATION_ID }),
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
  await or.endpoints.list({ author: 'nobody', slug: 'nothing' });
  out.notFound = 'no error';
} catch (e) {
  out.notFound = { name: e.constructor.name, statusCode: e.statusCode };
}
process.stdout.write(JSON.stringify(out));
