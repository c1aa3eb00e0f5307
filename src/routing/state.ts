/**
 * The routing state every inference operation shares, built once per gateway and handed to each
 * operation: the catalog, the circuits, the endpoint statistics, the sessions' endpoints and the
 * upstream connection pool.
 * It also answers the routes that show that state (`/providers`, `/models/{a}/{s}/endpoints`), so
 * they depend on routing, not on any one operation.
 * @module
 */
import type { Catalog } from '../catalog/catalog';
import { unknownModel } from '../catalog/catalog';
import { modelEndpoints } from '../catalog/model-endpoints';
import { providerList } from '../catalog/provider-list';
import type { Config } from '../config';
import type { Kv } from '../kv/kv';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { UpstreamHttp } from '../transport/upstream-http';
import { CircuitBreaker } from './breaker';
import { EndpointStats } from './endpoint-stats';
import { SessionAffinity } from './session-affinity';
import { KeyPools } from './key-pool';

/** What the routing state is built from. */
export interface RoutingDeps {
  config: Config;
  kv: Kv;
  metrics: Metrics;
  logger: Logger;
  clock: () => number;
}

/** Catalog, circuits, endpoint stats and the upstream pool: one of each per gateway, for every operation. */
export class RoutingState {
  /** The circuits of every endpoint (per organization, and shared). */
  readonly breaker: CircuitBreaker;
  /** Each organization's recent attempts per endpoint (the Providers page's error rate and latency). */
  readonly stats: EndpointStats;
  /** The keep-alive pool to every upstream origin. */
  readonly http: UpstreamHttp;
  /** Which endpoint each session last used (sticky sessions). */
  readonly affinity: SessionAffinity;
  /** The key pools of providers with several keys (shared across replicas). */
  readonly keys: KeyPools;

  constructor(
    deps: RoutingDeps,
    readonly catalog: Catalog,
  ) {
    const clock = deps.clock;
    this.breaker = new CircuitBreaker(deps.kv, deps.metrics, deps.config.breaker, clock, deps.logger);
    this.stats = new EndpointStats(deps.kv, { clock, logger: deps.logger, metrics: deps.metrics });
    this.http = new UpstreamHttp(deps.config.upstream);
    this.affinity = new SessionAffinity(deps.kv, deps.config.chat.sessionAffinityTtlMs, deps.logger);
    this.keys = new KeyPools(catalog.providers, deps.kv, deps.metrics, deps.logger, clock);
  }

  /**
   * GET /models/{author}/{slug}/endpoints (a model of either kind): the model's endpoints with the
   * circuit state `orgId` sees now and its recent uptime and latency.
   * @throws NotFoundError (with where the list is) for a model this gateway does not serve
   */
  async modelEndpoints(id: string, orgId: string) {
    const model = this.catalog.find(id);
    if (!model) throw unknownModel(id);
    const recent = await this.stats.recent(orgId);
    return modelEndpoints(
      model,
      (e) => this.breaker.peek(e, orgId),
      (e) => recent.get(e.id),
    );
  }

  /** GET /providers: the catalog's providers, each with its endpoints' circuit state now, `orgId`'s recent attempts and its key pool. */
  async providers(orgId: string) {
    const recent = await this.stats.read(orgId);
    return providerList(
      this.catalog,
      (e) => this.breaker.peek(e, orgId),
      (e) => recent.get(e.id),
      (p) => this.keys.readings(p),
    );
  }

  /** Flush the endpoint stats and close the upstream pool (shutdown). */
  async close(): Promise<void> {
    await this.stats.close();
    await this.keys.drain();
    await this.http.close();
  }
}
