/**
 * The shipped chat catalog and providers as written in config/ (prices per 1M tokens, as strings),
 * so that tests derive what the model lists must show from the files rather than hard-coding
 * their contents: a catalog change then needs no test edits, and a test still fails when the
 * gateway disagrees with the file.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { fromRoot } from '../../src/paths';

/** One endpoint of config/chat-models.yaml. */
export interface ShippedEndpoint {
  provider: string;
  upstream_model: string;
  pricing: Record<string, string>;
  context_length?: number;
  max_completion_tokens?: number;
  input_modalities?: string[];
  supported_parameters?: string[];
}

/** One model of config/chat-models.yaml. */
export interface ShippedModel {
  id: string;
  name: string;
  created: number;
  context_length: number;
  aliases?: string[];
  endpoints: ShippedEndpoint[];
}

/** One provider of config/providers.yaml. */
export interface ShippedProvider {
  slug: string;
  name: string;
  adapter: string;
  base_url: string;
}

/** The text of a file under config/. */
export const configText = (file: string): string => readFileSync(fromRoot('config', file), 'utf8');

/** The chat models of config/chat-models.yaml, in file order. */
export function shippedChatModels(): ShippedModel[] {
  return (parseYaml(configText('chat-models.yaml')) as { models: ShippedModel[] }).models;
}

/** The providers of config/providers.yaml. */
export function shippedProviders(): ShippedProvider[] {
  return (parseYaml(configText('providers.yaml')) as { providers: ShippedProvider[] }).providers;
}

/** USD per 1M prompt and completion tokens of the model's cheapest endpoint (prompt + completion), the first of equals. */
export function cheapestPerMillion(m: ShippedModel): { prompt: number; completion: number } {
  const prices = m.endpoints.map((e) => ({
    prompt: Number(e.pricing.prompt),
    completion: Number(e.pricing.completion),
  }));
  return prices.reduce((a, b) => (b.prompt + b.completion < a.prompt + a.completion ? b : a));
}
