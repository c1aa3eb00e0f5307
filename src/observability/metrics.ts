/**
 * Every Prometheus metric of the gateway, defined in one place with bounded label sets.
 * Labels carry route templates, methods, status classes and fixed reason words only, never
 * key hashes, user ids or workspace ids, so cardinality stays fixed however many tenants exist.
 * Each app gets its own Registry so that several instances in one process (tests) never clash.
 * Every metric is prom-client's own Counter, Histogram or Gauge. A scrape gets the Prometheus text
 * format, or OpenMetrics (which alone carries exemplars) when it asks for it ({@link Metrics.exposition}).
 * @module
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type RegistryContentType } from 'prom-client';

/** Latency buckets in seconds, fine at the low end where gateway overhead lives. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A new registry in the OpenMetrics format. */
function openMetricsRegistry(): Registry<RegistryContentType> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  return registry;
}

/** A rendered scrape. */
export interface Exposition {
  contentType: string;
  body: string;
}

/** The gateway's metric set. */
export class Metrics {
  /**
   * Prometheus text format, except while an OpenMetrics scrape renders ({@link exposition}). Made
   * as an OpenMetrics registry, since prom-client lets a histogram with exemplars join only such a
   * registry, and set to the Prometheus format once every metric has joined (constructor).
   */
  readonly registry = openMetricsRegistry();
  /** The render in progress: renders run one at a time, since an OpenMetrics one switches the registry's format. */
  private rendering: Promise<unknown> = Promise.resolve();

  readonly httpRequests = new Counter({
    name: 'switchyard_http_requests_total',
    help: 'HTTP requests by route template, method and status class',
    labelNames: ['route', 'method', 'status_class'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'switchyard_http_request_duration_seconds',
    help: 'HTTP request duration by route template, method and status class',
    labelNames: ['route', 'method', 'status_class'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly authFailures = new Counter({
    name: 'switchyard_auth_failures_total',
    help: 'Rejected authentications by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly cacheLookups = new Counter({
    name: 'switchyard_cache_lookups_total',
    help: 'Replica-coherent cache lookups by cache (keys, budgets) and result (hit, miss, stale: served past its TTL because reloading failed)',
    labelNames: ['cache', 'result'] as const,
    registers: [this.registry],
  });

  readonly cacheInvalidations = new Counter({
    name: 'switchyard_cache_invalidations_total',
    help: 'Cache invalidations by cache and source (message, reconnect, publish_failed)',
    labelNames: ['cache', 'source'] as const,
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'switchyard_rate_limited_total',
    help: 'Requests refused with 429 by limiter',
    labelNames: ['limiter'] as const,
    registers: [this.registry],
  });

  readonly rateLimitStoreErrors = new Counter({
    name: 'switchyard_rate_limit_store_errors_total',
    help: 'Rate-limit store failures (Redis unreachable) by limiter and the action taken (fail_open, fail_closed)',
    labelNames: ['limiter', 'action'] as const,
    registers: [this.registry],
  });

  readonly dependencyUp = new Gauge({
    name: 'switchyard_dependency_up',
    help: 'Whether a dependency answered the last readiness check (1) or not (0)',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });

  readonly upstreamRequests = new Counter({
    name: 'switchyard_upstream_requests_total',
    help: 'Upstream attempts (embeddings and chat) by provider slug, catalog model and outcome (ok, timeout, overloaded, rate_limited, server, client, network)',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: [this.registry],
  });

  /**
   * Carries exemplars (`trace_id` of a sampled trace, with tracing on), shown in the OpenMetrics
   * format ({@link exposition}); so it is always observed in the object form. `trace_id` is in the
   * type's label names only for the exemplar: it is not a label.
   */
  readonly upstreamDuration = new Histogram<'provider' | 'model' | 'trace_id'>({
    name: 'switchyard_upstream_request_duration_seconds',
    help: 'Upstream attempt duration (embeddings; chat: until the answer or the first content of a stream) by provider slug and catalog model',
    labelNames: ['provider', 'model'] as const,
    buckets: LATENCY_BUCKETS,
    enableExemplars: true,
    registers: [this.registry],
  });

  readonly gatewayOverhead = new Histogram({
    name: 'switchyard_gateway_overhead_seconds',
    help: 'Time the gateway added to an inference request (chat, embeddings) by route: handling time minus upstream time, for a stream until its first content',
    labelNames: ['route'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.01, 0.025, 0.05, 0.1],
    registers: [this.registry],
  });

  readonly fallbacks = new Counter({
    name: 'switchyard_upstream_fallbacks_total',
    help: 'Times a request moved on from a failed provider endpoint to the next candidate, by the failed provider and model',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });

  readonly circuitState = new Gauge({
    name: 'switchyard_circuit_state',
    help: 'Circuit breaker state per provider endpoint as last seen by this replica: 0 closed, 1 half-open, 2 open',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });

  readonly providerKeyState = new Gauge({
    name: 'switchyard_provider_key_state',
    help: 'State of each key of a provider key pool as this replica sees it: 0 in use, 1 resting after a 429, 2 taken out after a 401/403',
    labelNames: ['provider', 'key'] as const,
    registers: [this.registry],
  });

  readonly providerKeyRefusals = new Counter({
    name: 'switchyard_provider_key_refusals_total',
    help: 'Answers that rested (429) or took out (401, 403) a key of a provider key pool, by provider, key label and status',
    labelNames: ['provider', 'key', 'status'] as const,
    registers: [this.registry],
  });

  readonly embeddingTokens = new Counter({
    name: 'switchyard_embeddings_tokens_total',
    help: 'Prompt tokens of successful embeddings requests by provider and model',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });

  readonly embeddingCost = new Counter({
    name: 'switchyard_embeddings_cost_usd_total',
    help: 'Cost in USD of successful embeddings requests by provider and model',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });

  readonly chatTokens = new Counter({
    name: 'switchyard_chat_tokens_total',
    help: 'Tokens of answered chat requests by provider, model and kind (prompt, completion)',
    labelNames: ['provider', 'model', 'kind'] as const,
    registers: [this.registry],
  });

  readonly chatCost = new Counter({
    name: 'switchyard_chat_cost_usd_total',
    help: 'Cost in USD of answered chat requests by provider and model',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });

  readonly chatTimeToFirstToken = new Histogram({
    name: 'switchyard_chat_time_to_first_token_seconds',
    help: 'Time from a streamed chat request to its first content chunk, by provider and model',
    labelNames: ['provider', 'model'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly chatStreamEnds = new Counter({
    name: 'switchyard_chat_stream_ends_total',
    help: 'Started chat-like streams by how they ended: done, upstream_error (ended with an error event), client_left, client_stalled (stopped reading)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Reads the usage outbox's depth at scrape time; set by the recorder ({@link setUsageDepthSource}). */
  private usageDepthSource: (() => Promise<number>) | undefined;

  readonly usageQueueDepth = new Gauge({
    name: 'switchyard_usage_queue_depth',
    help: 'Usage not yet written to the database: Redis Stream entries (one XADD of up to usage.batchSize events each) plus events buffered in process; embedded, queued events',
    registers: [this.registry],
    collect: async () => {
      // Unreadable (Redis down): the gauge keeps its last value, and the outbox reports the outage.
      const depth = await this.usageDepthSource?.().catch(() => undefined);
      if (depth !== undefined) this.usageQueueDepth.set(depth);
    },
  });

  readonly usageEventsRecorded = new Counter({
    name: 'switchyard_usage_events_recorded_total',
    help: 'Usage events accepted by the outbox, by outbox kind (redis, memory)',
    labelNames: ['outbox'] as const,
    registers: [this.registry],
  });

  readonly usageBatchesWritten = new Counter({
    name: 'switchyard_usage_batches_written_total',
    help: 'Usage batches inserted into the database',
    registers: [this.registry],
  });

  readonly usageEventsWritten = new Counter({
    name: 'switchyard_usage_events_written_total',
    help: 'Usage events in batches inserted into the database (redeliveries included; inserts are idempotent)',
    registers: [this.registry],
  });

  readonly usageWriteFailures = new Counter({
    name: 'switchyard_usage_write_failures_total',
    help: 'Failed usage writes by stage (insert = database, enqueue = Redis XADD, ack = Redis XACK); retried, never dropped',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly budgetReservations = new Counter({
    name: 'switchyard_budget_reservations_total',
    help: "Spend reservations against budgets and key limits by result (reserved: a hold in Redis; lease: admitted on this replica's budget lease; refused; unavailable)",
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly budgetRefusals = new Counter({
    name: 'switchyard_budget_refusals_total',
    help: 'Requests refused with 402 by the limit that refused them (workspace_budget, key_limit) and its interval',
    labelNames: ['limit_source', 'interval'] as const,
    registers: [this.registry],
  });

  readonly budgetCounterRebuilds = new Counter({
    name: 'switchyard_budget_counter_rebuilds_total',
    help: 'Budget/key-limit counters rebuilt from the usage table after Redis lost them (or a new period began)',
    registers: [this.registry],
  });

  readonly budgetStoreErrors = new Counter({
    name: 'switchyard_budget_store_errors_total',
    help: 'Budget store failures by operation (reserve fails closed with 503; settle/release holds expire)',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });

  readonly budgetSettleCapped = new Counter({
    name: 'switchyard_budget_settle_capped_total',
    help: 'Costs above what their request reserved, capped at the reservation, by stage (answer: the answer and its usage record; settle: the spend guard, for a cost that still exceeded its hold)',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly fileUploads = new Counter({
    name: 'switchyard_file_uploads_total',
    help: 'File uploads by outcome (stored, too_large, rejected = bad form/empty/unsupported type/client gone, busy = over the organization cap or the spool full, failed = server error)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly fileBytes = new Counter({
    name: 'switchyard_file_bytes_total',
    help: 'File content bytes stored (direction=in, committed uploads only) and served (direction=out)',
    labelNames: ['direction'] as const,
    registers: [this.registry],
  });

  readonly fileUploadsInProgress = new Gauge({
    name: 'switchyard_file_uploads_in_progress',
    help: 'Uploads in progress on this replica by stage (receiving = the body is being spooled to disk; storing = a complete body is being written to the database, or waits its turn to)',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly fileSpoolBytes = new Gauge({
    name: 'switchyard_file_spool_bytes',
    help: 'Bytes of upload bodies held in the spool directory of this replica (bounded by files.spoolMaxBytes)',
    registers: [this.registry],
  });

  readonly storeConnectionErrors = new Counter({
    name: 'switchyard_store_connection_errors_total',
    help: 'Connection errors reported by a store client (redis: ioredis, postgres: pg pool and clients); they reconnect on their own',
    labelNames: ['store'] as const,
    registers: [this.registry],
  });

  readonly httpRefusals = new Counter({
    name: 'switchyard_http_refusals_total',
    help: 'Requests answered before reaching the application, by status (400 malformed or no Host, 408 headers or body too slow, 413 declared length over the limit, 415 a transfer coding other than chunked, 417 an Expect other than 100-continue, 431 headers too large)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly rankingsRollups = new Counter({
    name: 'switchyard_rankings_rollups_total',
    help: 'Rankings rollup runs by outcome (ok, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly classifierTagging = new Counter({
    name: 'switchyard_classifier_tagging_total',
    help: 'Requests handled by workspace classifiers after their answer (tagged, dropped = queue full, org_queue_full = the organization already has its share queued, timeout = matching past its deadline, failed = store error)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly rankingsRollupDuration = new Histogram({
    name: 'switchyard_rankings_rollup_duration_seconds',
    help: 'Duration of a rankings rollup run (lock wait included)',
    labelNames: [] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  readonly rankingsSamples = new Counter({
    name: 'switchyard_rankings_samples_total',
    help: 'Sampled requests for the category/language_type datasets by outcome (stored, dropped = queue full, skipped = no text, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly analyticsQueries = new Counter({
    name: 'switchyard_analytics_queries_total',
    help: 'Analytics queries by outcome (ok, invalid = 400, timeout = 408, failed = 500)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly embeddingsCacheLookups = new Counter({
    name: 'switchyard_embeddings_cache_lookups_total',
    help: 'Embeddings cache lookups per input by result (hit, miss; skipped = the store did not answer in time or failed)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly embeddingsCacheWrites = new Counter({
    name: 'switchyard_embeddings_cache_writes_total',
    help: 'Embeddings cache entry writes by outcome (stored, failed = store error, dropped = too many pending, skipped = not cacheable, full = over the cache byte bound on a shared Redis)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly embeddingsCacheBytesWritten = new Counter({
    name: 'switchyard_embeddings_cache_written_bytes_total',
    help: 'Bytes of embeddings cache entries written to the store',
    registers: [this.registry],
  });

  readonly embeddingsCacheBytes = new Gauge({
    name: 'switchyard_embeddings_cache_bytes',
    help: 'Bytes held by the in-process embeddings cache (embedded mode; with Redis see its used_memory)',
    registers: [this.registry],
  });

  readonly embeddingsCacheEvictions = new Counter({
    name: 'switchyard_embeddings_cache_evictions_total',
    help: 'Entries the in-process embeddings cache dropped by reason (evict = over its byte bound, expire = past TTL); Redis evictions are its evicted_keys',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly embeddingsCacheCorrupt = new Counter({
    name: 'switchyard_embeddings_cache_corrupt_total',
    help: 'Embeddings cache entries that failed their checks on read (treated as misses and replaced)',
    registers: [this.registry],
  });

  readonly endpointStatsWriteFailures = new Counter({
    name: 'switchyard_endpoint_stats_write_failures_total',
    help: "Flushes of per-minute endpoint statistics (the dashboard's provider health) the shared store refused; their counts are dropped",
    registers: [this.registry],
  });

  readonly embeddingsCacheSavedTokens = new Counter({
    name: 'switchyard_embeddings_cache_saved_tokens_total',
    help: 'Prompt tokens answered from the embeddings cache instead of the upstream, by catalog model',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });

  readonly embeddingsCacheSavedUsd = new Counter({
    name: 'switchyard_embeddings_cache_saved_usd_total',
    help: "USD the embeddings cache saved (cached tokens and images at the producing endpoint's current price), by catalog model",
    labelNames: ['model'] as const,
    registers: [this.registry],
  });

  readonly traceExportFailures = new Counter({
    name: 'switchyard_trace_export_failures_total',
    help: 'Batches of spans the OTLP receiver refused or could not be reached for (their spans are dropped); tracing on only',
    registers: [this.registry],
  });

  /**
   * The scrape body: OpenMetrics (with the histograms' exemplars) when `openMetrics`, else the
   * Prometheus text format. prom-client renders the format its registry is set to and, rendering
   * OpenMetrics, renames each counter in place (drops `_total`), which a later Prometheus render
   * would print; so the OpenMetrics render sets the format for its duration, then restores it and
   * the names, and renders never overlap.
   */
  exposition(openMetrics: boolean): Promise<Exposition> {
    const run = this.rendering.then(() => (openMetrics ? this.renderOpenMetrics() : this.render()));
    // The caller gets `run`'s failure; the chain only keeps renders in order.
    this.rendering = run.catch(() => undefined);
    return run;
  }

  private async render(): Promise<Exposition> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private async renderOpenMetrics(): Promise<Exposition> {
    const names = this.registry.getMetricsAsArray().map((metric) => [metric, metric.name] as const);
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    try {
      return await this.render();
    } finally {
      this.registry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
      for (const [metric, name] of names) metric.name = name;
    }
  }

  /** Let the usage outbox report its depth on each scrape (no background loop). */
  setUsageDepthSource(source: () => Promise<number>): void {
    this.usageDepthSource = source;
  }

  /** @param defaults - also collect prom-client's process metrics (off in tests to save timers) */
  constructor(defaults = false) {
    this.registry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }
}

/** `2xx`, `4xx`…: the bounded form of a status code for labels. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}
