// Drives the official @openrouter/sdk's analytics calls against a running Switchyard (argv:
// serverURL, management key, classifier id) and prints what they returned. The SDK parses rows
// as `{}`, so the raw bodies are captured with a response hook (reference notes §10).
import { OpenRouter, HTTPClient } from '@openrouter/sdk';

const [serverURL, mgmtKey, classifierId] = process.argv.slice(2);
const raw = [];
const http = new HTTPClient();
http.addHook('response', async (res) => {
  raw.push(await res.clone().text());
});
const or = new OpenRouter({ apiKey: mgmtKey, serverURL, retryConfig: { strategy: 'none' }, httpClient: http });
const out = {};
const errorOf = (e) => ({ name: e?.constructor?.name, status: e?.statusCode, message: e?.message?.slice(0, 200) });
const lastBody = () => JSON.parse(raw[raw.length - 1]);
const timeRange = { start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-11-20T00:00:00Z') };

try {
  const meta = await or.analytics.getAnalyticsMeta();
  out.meta = {
    metrics: meta.data.metrics.map((m) => m.name),
    first: meta.data.metrics[0],
    dimensions: meta.data.dimensions.map((d) => d.name),
    operators: meta.data.operators.length,
    granularities: meta.data.granularities.map((g) => g.name),
  };
  const daily = await or.analytics.queryAnalytics({
    requestBody: {
      metrics: ['request_count', 'total_usage'],
      dimensions: ['model'],
      granularity: 'day',
      timeRange,
      filters: [{ field: 'model', operator: 'in', value: ['m1', 'm2'], includeUnset: false }],
      orderBy: { field: 'date', direction: 'asc' },
      limit: 100,
      groupLimit: 10,
    },
  });
  out.daily = { parsed: { rows: daily.data.data.length, metadata: daily.data.metadata }, raw: lastBody().data.data };
  const tagged = await or.analytics.queryAnalytics({
    requestBody: {
      metrics: ['request_count'],
      timeRange,
      classifierDimensions: { classifierId, dimensionNames: ['topic'], includeNulls: false },
      classifierFilters: { classifierId, filters: [{ field: 'topic', operator: 'eq', value: 'billing' }] },
    },
  });
  out.tagged = { metadata: tagged.data.metadata, raw: lastBody().data.data };
  try {
    await or.analytics.queryAnalytics({ requestBody: { metrics: ['request_count'], dimensions: ['a', 'b', 'c'] } });
    out.invalid = 'no error';
  } catch (e) {
    out.invalid = errorOf(e);
  }
} catch (e) {
  out.fatal = { ...errorOf(e), raw: String(e?.rawValue ? JSON.stringify(e.rawValue).slice(0, 500) : (e?.cause ?? '')) };
}
process.stdout.write(JSON.stringify(out));
