/**
 * Minting a key: a fresh secret and the row to store for it (hash and masked label, never the
 * secret). The API, the CLI and organization provisioning all mint through here, so every key
 * is made the same way.
 * @module
 */
import type { NewKey } from './repository';
import { generateSecret, hashSecret, labelFor } from './secrets';

/** What the caller decides about a new key; everything else takes its default. */
export type KeySpec = Pick<NewKey, 'orgId' | 'workspaceId' | 'name'> & Partial<Omit<NewKey, 'hash' | 'label'>>;

/**
 * Build a new key's secret and row.
 * @param secret - a given secret (bootstrap automation); default a fresh random one
 */
export function mintKey(spec: KeySpec, secret: string = generateSecret()): { secret: string; row: NewKey } {
  return {
    secret,
    row: {
      isManagement: false,
      disabled: false,
      limitUsd: null,
      limitReset: null,
      includeByokInLimit: false,
      expiresAt: null,
      creatorUserId: null,
      externalUser: null,
      ...spec,
      hash: hashSecret(secret),
      label: labelFor(secret),
    },
  };
}
