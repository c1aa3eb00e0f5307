/**
 * The Key objects on the wire, exactly as the reference notes and `@openrouter/sdk` expect:
 * snake_case, every field present (nullable ones as null), usage zero until spend exists.
 * @module
 */
import { roundUsd } from '../catalog/usd';
import type { ApiKeyRecord, KeyUsage } from './types';
import type { Key } from '../wire/types';

function iso(d: Date | null): string | null {
  return d ? d.toISOString() : null;
}

/** What is left of the key's limit in its current reset period; null without a limit. */
export function limitRemaining(k: ApiKeyRecord, usage: KeyUsage): number | null {
  if (k.limitUsd === null) return null;
  const spent = k.limitReset === null ? usage.total : usage[k.limitReset];
  return roundUsd(Math.max(0, k.limitUsd - spent));
}

function usageFields(usage: KeyUsage) {
  return {
    usage: roundUsd(usage.total),
    usage_daily: roundUsd(usage.daily),
    usage_weekly: roundUsd(usage.weekly),
    usage_monthly: roundUsd(usage.monthly),
    byok_usage: 0,
    byok_usage_daily: 0,
    byok_usage_weekly: 0,
    byok_usage_monthly: 0,
  };
}

/** `Key` as returned by `/keys` and `/keys/{hash}`. */
export function toWireKey(k: ApiKeyRecord, usage: KeyUsage): Key {
  return {
    hash: k.hash,
    name: k.name,
    label: k.label,
    disabled: k.disabled,
    limit: k.limitUsd,
    limit_remaining: limitRemaining(k, usage),
    limit_reset: k.limitReset,
    include_byok_in_limit: k.includeByokInLimit,
    ...usageFields(usage),
    created_at: k.createdAt.toISOString(),
    updated_at: iso(k.updatedAt),
    expires_at: iso(k.expiresAt),
    creator_user_id: k.creatorUserId,
    external_user: k.externalUser,
    workspace_id: k.workspaceId,
  };
}

/** Rate-limit facts shown (deprecated field, still required by older clients) on `/key`. */
export interface RateLimitInfo {
  limit: number;
  windowMs: number;
}

/** The `/key` object: the caller's own key, without hash or name. */
export function toCurrentKeyWire(k: ApiKeyRecord, usage: KeyUsage, rl: RateLimitInfo) {
  return {
    label: k.label,
    limit: k.limitUsd,
    limit_remaining: limitRemaining(k, usage),
    limit_reset: k.limitReset,
    include_byok_in_limit: k.includeByokInLimit,
    ...usageFields(usage),
    is_free_tier: false,
    is_management_key: k.isManagement,
    is_provisioning_key: k.isManagement,
    rate_limit: {
      requests: rl.limit,
      interval: `${Math.round(rl.windowMs / 1000)}s`,
      note: 'Per-key request limit of this gateway',
    },
    expires_at: iso(k.expiresAt),
    creator_user_id: k.creatorUserId,
    allowed_data_regions: ['global'],
    free_model_daily_requests: { limit: 0, remaining: 0, used: 0 },
    organization_id: k.orgId,
    workspace_id: k.workspaceId,
  };
}
