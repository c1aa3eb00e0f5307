/**
 * The API key record as the gateway uses it internally (camelCase, Dates); `wire.ts` maps it to
 * the snake_case object of the reference notes.
 * @module
 */

/** How often a key's spending limit resets; null = never. */
export type LimitReset = 'daily' | 'weekly' | 'monthly';

/** One API key, without its secret. */
export interface ApiKeyRecord {
  hash: string;
  orgId: string;
  workspaceId: string;
  name: string;
  label: string;
  isManagement: boolean;
  disabled: boolean;
  limitUsd: number | null;
  limitReset: LimitReset | null;
  includeByokInLimit: boolean;
  expiresAt: Date | null;
  creatorUserId: string | null;
  externalUser: string | null;
  createdAt: Date;
  updatedAt: Date | null;
  /** Moves on each time the key is disabled or deleted: a dashboard session opened before is over. */
  sessionGeneration: number;
}

/** Spend figures shown on a key; zeros until usage is recorded. */
export interface KeyUsage {
  total: number;
  daily: number;
  weekly: number;
  monthly: number;
}

/** Zero usage, for keys with no recorded spend. */
export const NO_USAGE: KeyUsage = Object.freeze({ total: 0, daily: 0, weekly: 0, monthly: 0 });
