/**
 * `GET /models/{author}/{slug}/endpoints`, the page each model's `links.details` names: the
 * model and every provider endpoint that serves it, with its prices, limits, parameters, data
 * policy, whether it is usable here (its provider's key is configured), its circuit's state now,
 * and the caller's organization's recent uptime and latency on it, in the shape of the hosted
 * service's route (`{data:{id, name, …, endpoints:[…]}}`), every field the official SDK's schema
 * requires included.
 * @module
 */
import type { CatalogModel, Endpoint } from './types';
import { wirePricing } from './wire';
import { CircuitState } from '../routing/breaker-scripts';
import type { AttemptCounts, EndpointRecent } from '../routing/endpoint-stats';
import { latencyPercentiles } from '../routing/latency-histogram';
import type { Endpoint as WireEndpoint } from '../wire/types';

/** A circuit's state for a report, or null when it could not be read. */
export type CircuitReading = { state: CircuitState; failures: number } | null;

const STATE_NAMES: Record<CircuitState, 'closed' | 'half_open' | 'open'> = { 0: 'closed', 1: 'half_open', 2: 'open' };

/** A circuit reading on the wire: its state's name (`unknown` when it could not be read) and failures in a row. */
export function toWireCircuit(circuit: CircuitReading): WireEndpoint['circuit'] {
  return { state: circuit ? STATE_NAMES[circuit.state] : 'unknown', consecutive_failures: circuit?.failures ?? null };
}

/** What the hosted list says of an endpoint without tool calls (every embeddings endpoint). */
const NO_TOOL_CHOICE = { auto: false, function: false, none: false, required: false };
/** An endpoint that honours `tool_choice` takes every form of it (both chat wire formats map all four). */
const ALL_TOOL_CHOICE = { auto: true, function: true, none: true, required: true };

/**
 * Uptime in percent as the hosted API defines it: answered / (answered + failed) attempts, upstream
 * 429s left out (an answer about the request itself counts as answered); null with no attempt.
 */
export function uptimePercent(c: AttemptCounts | undefined): number | null {
  const counted = c ? c.attempts - c.rateLimited : 0;
  if (!c || counted <= 0) return null;
  return ((c.attempts - c.failures) / counted) * 100;
}

/** One endpoint on the wire. */
function toWireEndpoint(model: CatalogModel, e: Endpoint, circuit: CircuitReading, recent: EndpointRecent | undefined) {
  const wireCircuit = toWireCircuit(circuit);
  const state = wireCircuit.state;
  return {
    name: `${e.provider.name} | ${model.id}`,
    model_name: model.name,
    provider_name: e.provider.name,
    tag: e.provider.slug,
    context_length: e.contextLength,
    max_prompt_tokens: e.contextLength,
    max_completion_tokens: e.maxCompletionTokens,
    pricing: wirePricing(e),
    quantization: e.quantization,
    input_modalities: [...e.inputModalities],
    output_modalities: [...e.outputModalities],
    token_input: e.tokenInput,
    supported_parameters: [...e.parameters].sort(),
    data_policy: { retains_data: e.retainsData, trains_on_data: e.trainsOnData, zdr: e.zdr },
    // 0 = serving; -1 = its circuit is open; -2 = not usable here (no key configured), as the hosted status codes go below 0 when degraded.
    status: !e.provider.configured ? -2 : state === 'open' ? -1 : 0,
    configured: e.provider.configured,
    circuit: wireCircuit,
    model_id: model.id,
    // Provider-side prompt caching without the caller asking: a cache-read price with no cache-write price (OpenAI-style; Anthropic's explicit
    // caching has a write price). Embeddings have neither; the gateway's own embeddings cache is reported per answer instead.
    supports_implicit_caching: e.pricing.cacheRead !== null && e.pricing.cacheWrite === null,
    supports_tool_choice: e.parameters.has('tool_choice') ? ALL_TOOL_CHOICE : NO_TOOL_CHOICE,
    uptime_last_5m: uptimePercent(recent?.last5m),
    uptime_last_30m: uptimePercent(recent?.last30m),
    uptime_last_1d: uptimePercent(recent?.lastDay),
    // Answered attempts' whole duration (an embeddings answer has no first token before its last).
    latency_last_30m: recent ? latencyPercentiles(recent.latency30m) : null,
    // Tokens per second of generated output: embeddings generate none, and chat attempts do not measure it yet.
    throughput_last_30m: null,
  };
}

/** The route's body for `model`, reading each endpoint's circuit through `circuitOf` and the caller's recent attempts through `recentOf`. */
export async function modelEndpoints(
  model: CatalogModel,
  circuitOf: (e: Endpoint) => Promise<CircuitReading>,
  recentOf: (e: Endpoint) => EndpointRecent | undefined,
) {
  const circuits = await Promise.all(model.endpoints.map(circuitOf));
  const wire = model.wire as { architecture: unknown };
  return {
    data: {
      id: model.id,
      name: model.name,
      created: model.created,
      description: model.description,
      architecture: wire.architecture,
      endpoints: model.endpoints.map((e, i) => toWireEndpoint(model, e, circuits[i] ?? null, recentOf(e))),
    },
  };
}
