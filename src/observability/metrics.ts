/**
 * Every Prometheus metric of the gateway, defined in one place with bounded label sets.
 * Labels carry route templates, methods, status classes and fixed reason words only, never
 * key hashes, user ids or workspace ids, so cardinality stays fixed however many tenants exist.
 * Each app gets its own Registry so that several instances in one process (tests) never clash.
 * @module
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Latency buckets in seconds, fine at the low end where gateway overhead lives. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The gateway's metric set. */
export class Metrics {
  readonly registry = new Registry();

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

  readonly keyCacheLookups = new Counter({
    name: 'switchyard_key_cache_lookups_total',
    help: 'API key cache lookups by result (hit, miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly keyCacheInvalidations = new Counter({
    name: 'switchyard_key_cache_invalidations_total',
    help: 'Key cache invalidations received (key changes on any replica, reconnect flushes)',
    labelNames: ['source'] as const,
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

  /** @param defaults - also collect prom-client's process metrics (off in tests to save timers) */
  constructor(defaults = false) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }
}

/** `2xx`, `4xx`…: the bounded form of a status code for labels. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}
