/**
 * Where and how to call Azure OpenAI: per-deployment URLs with an `api-version`, or the v1 API
 * (OpenAI's paths, the deployment named by the body's `model`); an `api-key` header, or a
 * Microsoft Entra bearer token.
 * @module
 */
import type { Endpoint, ProviderInfo } from '../../catalog/types';
import type { UpstreamRequest } from '../../transport/outcome';
import { entraToken } from './entra';

/**
 * `{base}/deployments/{deployment}/{operation}?api-version=…` (the deployment is the endpoint's
 * `upstream_model`), or `{base}/v1/{operation}`: the v1 API takes no dated `api-version`.
 */
export function azureUrl(endpoint: Endpoint, operation: 'chat/completions' | 'embeddings'): string {
  const { baseUrl, apiStyle, apiVersion } = endpoint.provider;
  if (apiStyle === 'v1') return `${baseUrl}/v1/${operation}`;
  const deployment = encodeURIComponent(endpoint.upstreamModel);
  const version = apiVersion ? `?api-version=${encodeURIComponent(apiVersion)}` : '';
  return `${baseUrl}/deployments/${deployment}/${operation}${version}`;
}

/** The key as `api-key`, unless the provider signs in with Entra (a token given as is goes here; a file's in {@link authorize}). */
export function azureHeaders(provider: ProviderInfo, key: string | null): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json' };
  const entra = provider.entra;
  if (entra && 'token' in entra) h.authorization = `Bearer ${entra.token}`;
  else if (!entra && key) h['api-key'] = key;
  return h;
}

/** Adds the bearer token of a provider whose Entra token is a file (re-read when it changes). */
export async function authorize(req: UpstreamRequest, endpoint: Endpoint): Promise<void> {
  const entra = endpoint.provider.entra;
  if (entra && 'file' in entra) req.headers.authorization = `Bearer ${await entraToken(entra.file)}`;
}
