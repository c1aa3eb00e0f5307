// Runs the ESM-only @openrouter/sdk against a gateway started by the jest test (which passes
// SERVER_URL and API_KEY). Retries are off so a failure surfaces at once. Prints one JSON line.
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
const out = {};
try {
  out.generate = await or.embeddings.generate({
    requestBody: {
      model: 'baai/bge-m3',
      input: ['hello', 'world!'],
      encodingFormat: 'float',
      inputType: 'search_document',
      user: 'sdk-user',
      sessionId: 'sdk-session',
      provider: {
        order: ['nebius'],
        allowFallbacks: false,
        maxPrice: { prompt: '1' },
        dataCollection: 'allow',
        sort: 'price',
      },
    },
  });
  out.base64 = await or.embeddings.generate({
    requestBody: { model: 'openai/text-embedding-3-small', input: 'abcd', encodingFormat: 'base64' },
  });
  const page = await or.embeddings.listModels({});
  out.models = page.result ?? page;
  const paged = await or.embeddings.listModels({ offset: 0, limit: 5 });
  out.paged = paged.result ?? paged;
  try {
    await or.embeddings.generate({ requestBody: { model: 'nobody/nothing', input: 'x' } });
    out.notFound = 'no error';
  } catch (err) {
    out.notFound = { name: err.constructor.name, statusCode: err.statusCode };
  }
} catch (err) {
  out.error = { name: err.constructor.name, message: String(err.message).slice(0, 2000), raw: raw.slice(-1) };
}
process.stdout.write(JSON.stringify(out));
