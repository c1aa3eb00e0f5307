/**
 * The gateway's metrics are prom-client's own Counter, Histogram and Gauge, registered on one
 * Registry per app: the names, types and label sets dashboards rely on are fixed here, and what
 * the code records is what a scrape prints.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { Metrics } from '../../src/observability/metrics';

/** Every metric's name, type and label names (dashboards and alerts depend on these). */
const CATALOGUE: ReadonlyArray<readonly [string, 'counter' | 'histogram' | 'gauge', readonly string[]]> = [
  ['switchyard_http_requests_total', 'counter', ['route', 'method', 'status_class']],
  ['switchyard_http_request_duration_seconds', 'histogram', ['route', 'method', 'status_class']],
  ['switchyard_auth_failures_total', 'counter', ['reason']],
  ['switchyard_cache_lookups_total', 'counter', ['cache', 'result']],
  ['switchyard_cache_invalidations_total', 'counter', ['cache', 'source']],
  ['switchyard_rate_limited_total', 'counter', ['limiter']],
  ['switchyard_rate_limit_store_errors_total', 'counter', ['limiter', 'action']],
  ['switchyard_dependency_up', 'gauge', ['dependency']],
  ['switchyard_upstream_requests_total', 'counter', ['provider', 'model', 'outcome']],
  ['switchyard_upstream_request_duration_seconds', 'histogram', ['provider', 'model']],
  ['switchyard_gateway_overhead_seconds', 'histogram', ['route']],
  ['switchyard_upstream_fallbacks_total', 'counter', ['provider', 'model']],
  ['switchyard_circuit_state', 'gauge', ['provider', 'model']],
  ['switchyard_provider_key_state', 'gauge', ['provider', 'key']],
  ['switchyard_provider_key_refusals_total', 'counter', ['provider', 'key', 'status']],
  ['switchyard_embeddings_tokens_total', 'counter', ['provider', 'model']],
  ['switchyard_embeddings_cost_usd_total', 'counter', ['provider', 'model']],
  ['switchyard_chat_tokens_total', 'counter', ['provider', 'model', 'kind']],
  ['switchyard_chat_cost_usd_total', 'counter', ['provider', 'model']],
  ['switchyard_chat_time_to_first_token_seconds', 'histogram', ['provider', 'model']],
  ['switchyard_chat_stream_ends_total', 'counter', ['outcome']],
  ['switchyard_usage_queue_depth', 'gauge', []],
  ['switchyard_usage_events_recorded_total', 'counter', ['outbox']],
  ['switchyard_usage_batches_written_total', 'counter', []],
  ['switchyard_usage_events_written_total', 'counter', []],
  ['switchyard_usage_write_failures_total', 'counter', ['stage']],
  ['switchyard_budget_reservations_total', 'counter', ['result']],
  ['switchyard_budget_refusals_total', 'counter', ['limit_source', 'interval']],
  ['switchyard_budget_counter_rebuilds_total', 'counter', []],
  ['switchyard_budget_store_errors_total', 'counter', ['operation']],
  ['switchyard_budget_settle_capped_total', 'counter', ['stage']],
  ['switchyard_file_uploads_total', 'counter', ['outcome']],
  ['switchyard_file_bytes_total', 'counter', ['direction']],
  ['switchyard_file_uploads_in_progress', 'gauge', ['stage']],
  ['switchyard_file_spool_bytes', 'gauge', []],
  ['switchyard_store_connection_errors_total', 'counter', ['store']],
  ['switchyard_http_refusals_total', 'counter', ['status']],
  ['switchyard_rankings_rollups_total', 'counter', ['outcome']],
  ['switchyard_classifier_tagging_total', 'counter', ['outcome']],
  ['switchyard_rankings_rollup_duration_seconds', 'histogram', []],
  ['switchyard_rankings_samples_total', 'counter', ['outcome']],
  ['switchyard_analytics_queries_total', 'counter', ['outcome']],
  ['switchyard_embeddings_cache_lookups_total', 'counter', ['result']],
  ['switchyard_embeddings_cache_writes_total', 'counter', ['outcome']],
  ['switchyard_embeddings_cache_written_bytes_total', 'counter', []],
  ['switchyard_embeddings_cache_bytes', 'gauge', []],
  ['switchyard_embeddings_cache_evictions_total', 'counter', ['reason']],
  ['switchyard_embeddings_cache_corrupt_total', 'counter', []],
  ['switchyard_endpoint_stats_write_failures_total', 'counter', []],
  ['switchyard_embeddings_cache_saved_tokens_total', 'counter', ['model']],
  ['switchyard_embeddings_cache_saved_usd_total', 'counter', ['model']],
  ['switchyard_trace_export_failures_total', 'counter', []],
];

test("the registry holds exactly the catalogued metrics, each prom-client's own kind", async () => {
  const m = new Metrics();
  const json = await m.registry.getMetricsAsJSON();
  expect(json.map((j) => [j.name, String(j.type)])).toEqual(CATALOGUE.map(([name, type]) => [name, type]));
  const kinds = { counter: Counter, histogram: Histogram, gauge: Gauge };
  for (const [name, type] of CATALOGUE) expect(m.registry.getSingleMetric(name)).toBeInstanceOf(kinds[type]);
});

/** Histograms with exemplars: prom-client takes their observations only in the object form. */
const WITH_EXEMPLARS = new Set(['switchyard_upstream_request_duration_seconds']);

test('each metric takes exactly its catalogued labels and prints them', async () => {
  const m = new Metrics();
  for (const [name, type, labels] of CATALOGUE) {
    if (name === 'switchyard_usage_queue_depth') continue; // set by its collect callback
    const metric = m.registry.getSingleMetric(name) as Counter & Histogram & Gauge;
    const values = Object.fromEntries(labels.map((l) => [l, 'x']));
    const observe = (labelValues: Record<string, string>, value: number) =>
      WITH_EXEMPLARS.has(name) ? metric.observe({ labels: labelValues, value }) : metric.observe(labelValues, value);
    if (type === 'histogram') observe(values, 0.003);
    else if (type === 'gauge') metric.set(values, 2);
    else metric.inc(values, 2);
    expect(() =>
      type === 'histogram' ? observe({ ...values, undeclared: 'y' }, 1) : metric.inc({ ...values, undeclared: 'y' }),
    ).toThrow(/undeclared/);
    const text = await m.registry.getSingleMetricAsString(name);
    const labelText = labels.map((l) => `${l}="x"`).join(',');
    if (type === 'histogram') expect(text).toContain(`${name}_count${labelText ? `{${labelText}}` : ''} 1`);
    else expect(text).toContain(`${name}${labelText ? `{${labelText}}` : ''} 2`);
  }
});

test('a histogram prints cumulative buckets, sum and count', async () => {
  const m = new Metrics();
  m.gatewayOverhead.observe({ route: '/e' }, 0.0004);
  m.gatewayOverhead.observe({ route: '/e' }, 0.0015);
  m.gatewayOverhead.observe({ route: '/e' }, 7);
  const text = await m.registry.getSingleMetricAsString('switchyard_gateway_overhead_seconds');
  expect(text).toContain('switchyard_gateway_overhead_seconds_bucket{le="0.0005",route="/e"} 1');
  expect(text).toContain('switchyard_gateway_overhead_seconds_bucket{le="0.002",route="/e"} 2');
  expect(text).toContain('switchyard_gateway_overhead_seconds_bucket{le="0.1",route="/e"} 2');
  expect(text).toContain('switchyard_gateway_overhead_seconds_bucket{le="+Inf",route="/e"} 3');
  expect(text).toContain('switchyard_gateway_overhead_seconds_count{route="/e"} 3');
  expect(text).toContain('switchyard_gateway_overhead_seconds_sum{route="/e"} 7.0019');
});

test('two instances in one process keep separate registries and counts', async () => {
  const a = new Metrics();
  const b = new Metrics();
  a.authFailures.inc({ reason: 'invalid' });
  a.authFailures.inc({ reason: 'invalid' });
  b.authFailures.inc({ reason: 'invalid' });
  expect((await a.authFailures.get()).values).toEqual([{ labels: { reason: 'invalid' }, value: 2 }]);
  expect((await b.authFailures.get()).values).toEqual([{ labels: { reason: 'invalid' }, value: 1 }]);
});

test('the usage queue depth is read from its source at scrape time', async () => {
  const m = new Metrics();
  let depth = 5;
  m.setUsageDepthSource(() => Promise.resolve(depth));
  expect(await m.registry.getSingleMetricAsString('switchyard_usage_queue_depth')).toContain(
    'switchyard_usage_queue_depth 5',
  );
  depth = 9;
  expect(await m.registry.getSingleMetricAsString('switchyard_usage_queue_depth')).toContain(
    'switchyard_usage_queue_depth 9',
  );
});

describe('exposition: Prometheus text by default, OpenMetrics (with exemplars) when asked', () => {
  test('an exemplar shows only in OpenMetrics, and an OpenMetrics render leaves the Prometheus one as it was', async () => {
    const m = new Metrics();
    m.httpRequests.inc({ route: '/r', method: 'GET', status_class: '2xx' });
    m.upstreamDuration.observe({
      labels: { provider: 'p', model: 'm' },
      value: 0.02,
      exemplarLabels: { trace_id: 'abc123' },
    });
    const om = await m.exposition(true);
    expect(om.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(om.body).toContain(
      'switchyard_upstream_request_duration_seconds_bucket{le="0.025",provider="p",model="m"} 1 # {trace_id="abc123"} 0.02 ',
    );
    expect(om.body).toContain('switchyard_http_requests_total{route="/r",method="GET",status_class="2xx"} 1');
    const text = await m.exposition(false);
    expect(text.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text.body).toContain('# TYPE switchyard_http_requests_total counter');
    expect(text.body).toContain('switchyard_http_requests_total{route="/r",method="GET",status_class="2xx"} 1');
    expect(text.body).not.toContain('abc123');
  });

  test('renders asked for at once do not mix formats', async () => {
    const m = new Metrics();
    m.setUsageDepthSource(() => Promise.resolve(3)); // an asynchronous collect, as with Redis
    const [om, text] = await Promise.all([m.exposition(true), m.exposition(false)]);
    expect(om.body.endsWith('# EOF\n')).toBe(true);
    expect(text.contentType).toMatch(/^text\/plain/);
    expect(text.body).not.toContain('# EOF');
    expect(text.body).toContain('# TYPE switchyard_auth_failures_total counter');
  });
});
