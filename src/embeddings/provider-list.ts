/**
 * `GET /providers`: the providers of this gateway's catalog in the hosted route's shape
 * (`{data:[{name, slug, privacy_policy_url, …}]}`), each with what the hosted list cannot know:
 * whether it is usable here (its key is configured) and every model endpoint it serves with
 * that endpoint's circuit state now. The dashboard's Providers page reads it.
 * @module
 */
import type { Catalog } from '../catalog/catalog';
import type { Endpoint } from '../catalog/types';
import { toWireCircuit, type CircuitReading } from './model-endpoints';

/** The route's body, reading each endpoint's circuit through `circuitOf`. */
export async function providerList(catalog: Catalog, circuitOf: (e: Endpoint) => Promise<CircuitReading>) {
  const endpoints = catalog.models.flatMap((m) => m.endpoints);
  const circuits = await Promise.all(endpoints.map(circuitOf));
  const served = new Map<string, Array<{ model: string; model_name: string; circuit: ReturnType<typeof toWireCircuit> }>>();
  endpoints.forEach((e, i) => {
    const list = served.get(e.provider.slug) ?? [];
    const model = catalog.find(e.modelId);
    list.push({ model: e.modelId, model_name: model?.name ?? e.modelId, circuit: toWireCircuit(circuits[i] ?? null) });
    served.set(e.provider.slug, list);
  });
  return {
    data: catalog.providers.map((p) => ({
      name: p.name,
      slug: p.slug,
      privacy_policy_url: null,
      terms_of_service_url: null,
      status_page_url: null,
      configured: p.configured,
      endpoints: served.get(p.slug) ?? [],
    })),
  };
}
