/**
 * Why a request has no candidate endpoint, as the hosted service reports it (reference notes
 * §0.1, `error.availability`): a request that can never succeed as asked (its input fits no
 * endpoint of the model, its own `provider` rules exclude every endpoint, or no provider left has
 * a key configured) is a 404 that is not retryable; endpoints that would serve it but cannot now
 * (circuits open) are a 503 `temporarily_unavailable` with `Retry-After`. Only run when selection came back empty, so
 * the hot path pays nothing for it.
 * @module
 */
import type { CatalogModel, Endpoint } from '../catalog/types';
import { NoEndpointsError, ServiceUnavailableError, type GatewayError } from '../errors';
import { providerCredentialHint } from '../config';
import { matchesProvider, type ProviderPreferences } from './preferences';
import { PROVIDER_CONSTRAINTS, acceptsInput, type RequestNeeds } from './select-candidates';

function inputLabel(needs: RequestNeeds): string {
  return needs.inputKind === 'tokens' ? 'token-id' : [...needs.modalities].sort().join('+') || 'text';
}

/** 503 for endpoints that exist and fit the request but cannot be used now. */
export function temporarilyUnavailable(
  model: CatalogModel,
  reason: string,
  providers: readonly Endpoint[],
  retryAfterS: number,
): ServiceUnavailableError {
  const retryAfter = Math.max(1, Math.ceil(retryAfterS));
  return new ServiceUnavailableError({ reason }, retryAfter, {
    code: 'temporarily_unavailable',
    retryable: true,
    retry_after: retryAfter,
    requested_models: [model.id],
    affected_providers: [...new Set(providers.map((e) => e.provider.slug))],
  });
}

/**
 * The error for a request whose candidate list came back empty: which constraint excluded every
 * endpoint (404), or that the endpoints left are not configured (404 naming the key variables).
 */
export function noCandidates(
  model: CatalogModel,
  needs: RequestNeeds,
  prefs: ProviderPreferences | null | undefined,
): GatewayError {
  const p = prefs ?? {};
  const filtered = (
    field: string,
    detail: string,
    code: 'constraint_filtered' | 'no_endpoints' = 'constraint_filtered',
  ) => new NoEndpointsError({ code, retryable: false, requested_models: [model.id], constraint: { field, detail } });

  let left = model.endpoints.filter((e) => acceptsInput(e, needs));
  if (left.length === 0)
    return filtered('input', `no endpoint of ${model.id} accepts ${inputLabel(needs)} input`, 'no_endpoints');
  for (const c of PROVIDER_CONSTRAINTS) {
    left = left.filter((e) => c.allows(e, model, needs, p));
    if (left.length === 0) return filtered(c.field, c.detail(p));
  }
  if (p.allow_fallbacks === false && p.order && p.order.length > 0) {
    const ordered = left.filter((e) => p.order?.some((ref) => matchesProvider(ref, e)));
    if (ordered.length === 0)
      return filtered(
        'provider.order',
        `no provider in order (${p.order.slice(0, 5).join(', ')}) serves ${model.id} and allow_fallbacks is false`,
      );
    left = ordered;
  }
  return notConfigured(model, left);
}

/**
 * 404 for endpoints left with no provider key: nothing changes until an operator sets one, so
 * retrying cannot help; the message names the variables that would.
 */
function notConfigured(model: CatalogModel, left: readonly Endpoint[]): NoEndpointsError {
  const slugs = [...new Set(left.map((e) => e.provider.slug))];
  const adapters = new Map(left.map((e) => [e.provider.slug, e.provider.adapter]));
  const variables = slugs.map((s) => providerCredentialHint(s, adapters.get(s) ?? ''));
  const text = `no provider of ${model.id} is configured; set ${variables.length === 1 ? variables[0] : `one of ${variables.join(', ')}`}`;
  return new NoEndpointsError(
    { code: 'no_endpoints', retryable: false, requested_models: [model.id], affected_providers: slugs },
    { text, metadata: { set_one_of: variables } },
  );
}
