// Drives the official @openrouter/sdk `datasets.getRankingsDaily` against a running Switchyard
// (argv: serverURL, API key, start date, end date, the week start of the start date: sampled
// datasets count weeks that start in the window) and prints one JSON object with what each call
// returned (parsed by the SDK's zod schemas) and the raw bodies, for rankings-sdk.test.ts.
import { OpenRouter, HTTPClient } from '@openrouter/sdk';

const [serverURL, apiKey, startDate, endDate, weekStartDate] = process.argv.slice(2);
const raw = [];
const httpClient = new HTTPClient();
httpClient.addHook('response', async (res) => {
  raw.push(await res.clone().text());
});
const or = new OpenRouter({ apiKey, serverURL, retryConfig: { strategy: 'none' }, httpClient });
const out = { calls: {}, errors: {} };
const errorOf = (e) => ({
  name: e?.constructor?.name,
  status: e?.statusCode,
  message: e?.message?.slice(0, 200),
  body: e?.body?.slice?.(0, 300),
});

const calls = {
  defaults: {},
  window: { startDate, endDate },
  week: { startDate, endDate, period: 'week' },
  month: { startDate, endDate, period: 'month' },
  text: { startDate, endDate, modality: 'text' },
  image: { startDate, endDate, modality: 'image' },
  imageOutput: { startDate, endDate, modality: 'image_output' },
  audio: { startDate, endDate, modality: 'audio' },
  tools: { startDate, endDate, modality: 'tool_calling' },
  bucket1K: { startDate, endDate, contextBucket: '1K' },
  bucket10M: { startDate, endDate, contextBucket: '10M' },
  bucketAndModality: { startDate, endDate, contextBucket: '10K', modality: 'text' },
  category: { startDate: weekStartDate, endDate, category: 'marketing/seo' },
  categoryMonth: { startDate: weekStartDate, endDate, category: 'programming', period: 'month' },
  language: { startDate: weekStartDate, endDate, languageType: 'natural' },
  clamped: { startDate: '2020-01-01', endDate },
};
for (const [name, params] of Object.entries(calls)) {
  try {
    const res = await or.datasets.getRankingsDaily(params);
    out.calls[name] = { data: res.data, meta: res.meta, raw: raw.at(-1) };
  } catch (e) {
    out.calls[name] = { error: errorOf(e), raw: raw.at(-1) };
  }
}
const refused = {
  dayWithCategory: { category: 'legal', period: 'day' },
  categoryWithModality: { category: 'legal', modality: 'text' },
  endBeforeDataset: { endDate: '2024-12-31' },
  startAfterEnd: { startDate: endDate, endDate: startDate },
};
for (const [name, params] of Object.entries(refused)) {
  try {
    await or.datasets.getRankingsDaily(params);
    out.errors[name] = 'no error';
  } catch (e) {
    out.errors[name] = errorOf(e);
  }
}
process.stdout.write(JSON.stringify(out));
