/**
 * `GET /providers`: the providers of this gateway's catalog in the hosted route's shape
 * (`{data:[{name, slug, privacy_policy_url, …}]}`), each with what the hosted list cannot know:
 * whether it is usable here (its key is configured), every model endpoint it serves with that
 * endpoint's circuit state now, and the caller's organization's attempts on it in the last hour
 * (error rate, mean latency), and the state of each key of its key pool, by label. The dashboard's
 * Providers page reads it.
 * @module
 */
import type { Catalog } from '../catalog/catalog';
import type { Endpoint, ProviderInfo } from '../catalog/types';
import type { KeyReading } from '../routing/key-pool';
import { STATS_WINDOW_MINUTES, type EndpointWindow } from '../routing/endpoint-stats';
import { toWireCircuit, type CircuitReading } from './model-endpoints';
import type { Wire } from '../wire';
import type { Recent } from '../wire/types';

/** Attempts over the window on the wire; rates are null when there were none. */
function toWireRecent(w: EndpointWindow): Recent {
  return {
    window_minutes: STATS_WINDOW_MINUTES,
    attempts: w.attempts,
    failures: w.failures,
    error_rate: w.attempts > 0 ? w.failures / w.attempts : null,
    avg_latency_ms: w.attempts > 0 ? Math.round(w.latencyMsSum / w.attempts) : null,
  };
}

const NONE: EndpointWindow = { attempts: 0, failures: 0, latencyMsSum: 0 };

function sum(windows: EndpointWindow[]): EndpointWindow {
  return windows.reduce(
    (a, w) => ({
      attempts: a.attempts + w.attempts,
      failures: a.failures + w.failures,
      latencyMsSum: a.latencyMsSum + w.latencyMsSum,
    }),
    NONE,
  );
}

/** The route's body: circuits through `circuitOf`, the caller's recent attempts through `recentOf`. */
export async function providerList(
  catalog: Catalog,
  circuitOf: (e: Endpoint) => Promise<CircuitReading>,
  recentOf: (e: Endpoint) => EndpointWindow | undefined,
  keysOf: (p: ProviderInfo) => KeyReading[],
): Promise<Wire<'providers.list.response'>> {
  const endpoints = catalog.models.flatMap((m) => m.endpoints);
  const circuits = await Promise.all(endpoints.map(circuitOf));
  const byProvider = new Map<string, Array<{ e: Endpoint; circuit: CircuitReading; recent: EndpointWindow }>>();
  endpoints.forEach((e, i) => {
    const list = byProvider.get(e.provider.slug) ?? [];
    list.push({ e, circuit: circuits[i] ?? null, recent: recentOf(e) ?? NONE });
    byProvider.set(e.provider.slug, list);
  });
  return {
    data: catalog.providers.map((p) => {
      const served = byProvider.get(p.slug) ?? [];
      return {
        name: p.name,
        slug: p.slug,
        privacy_policy_url: null,
        terms_of_service_url: null,
        status_page_url: null,
        configured: p.configured,
        recent: toWireRecent(sum(served.map((s) => s.recent))),
        endpoints: served.map(({ e, circuit, recent }) => ({
          model: e.modelId,
          model_name: catalog.find(e.modelId)?.name ?? e.modelId,
          circuit: toWireCircuit(circuit),
          recent: toWireRecent(recent),
        })),
        keys: keysOf(p),
      };
    }),
  };
}
