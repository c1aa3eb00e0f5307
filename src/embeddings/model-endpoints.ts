/**
 * `GET /models/{author}/{slug}/endpoints`, the page each model's `links.details` names: the
 * model and every provider endpoint that serves it, with its prices, limits, parameters, data
 * policy, whether it is usable here (its provider's key is configured) and its circuit's state
 * now, in the shape of the hosted service's route (`{data:{id, name, …, endpoints:[…]}}`).
 * @module
 */
import type { CatalogModel, Endpoint } from '../catalog/types';
import { CircuitState } from '../routing/breaker-scripts';

/** A circuit's state for a report, or null when it could not be read. */
export type CircuitReading = { state: CircuitState; failures: number } | null;

const STATE_NAMES: Record<CircuitState, 'closed' | 'half_open' | 'open'> = { 0: 'closed', 1: 'half_open', 2: 'open' };

/** A circuit reading on the wire: its state's name (`unknown` when it could not be read) and failures in a row. */
export function toWireCircuit(circuit: CircuitReading) {
  return { state: circuit ? STATE_NAMES[circuit.state] : 'unknown', consecutive_failures: circuit?.failures ?? null };
}

/** One endpoint on the wire. */
function toWireEndpoint(model: CatalogModel, e: Endpoint, circuit: CircuitReading) {
  const wireCircuit = toWireCircuit(circuit);
  const state = wireCircuit.state;
  return {
    name: `${e.provider.name} | ${model.id}`,
    model_name: model.name,
    provider_name: e.provider.name,
    tag: e.provider.slug,
    context_length: e.contextLength,
    max_prompt_tokens: e.contextLength,
    max_completion_tokens: null,
    pricing: { prompt: e.pricing.text.prompt, completion: '0', request: e.pricing.text.request, image: e.pricing.text.image },
    quantization: e.quantization,
    input_modalities: [...e.inputModalities],
    token_input: e.tokenInput,
    supported_parameters: [...e.parameters].sort(),
    data_policy: { retains_data: e.retainsData, trains_on_data: e.trainsOnData, zdr: e.zdr },
    // 0 = serving; -1 = its circuit is open; -2 = not usable here (no key configured), as the hosted status codes go below 0 when degraded.
    status: !e.provider.configured ? -2 : state === 'open' ? -1 : 0,
    configured: e.provider.configured,
    circuit: wireCircuit,
    uptime_last_30m: null,
  };
}

/** The route's body for `model`, reading each endpoint's circuit through `circuitOf`. */
export async function modelEndpoints(model: CatalogModel, circuitOf: (e: Endpoint) => Promise<CircuitReading>) {
  const circuits = await Promise.all(model.endpoints.map(circuitOf));
  const wire = model.wire as { architecture: unknown };
  return {
    data: {
      id: model.id,
      name: model.name,
      created: model.created,
      description: model.description,
      architecture: wire.architecture,
      endpoints: model.endpoints.map((e, i) => toWireEndpoint(model, e, circuits[i] ?? null)),
    },
  };
}
