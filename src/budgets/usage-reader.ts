/**
 * The spend figures shown on Key objects (`usage`, `usage_daily`, `usage_weekly`,
 * `usage_monthly`, and through them `limit_remaining`): summed from the usage table, the
 * durable truth, for the UTC day, ISO week and calendar month that contain the clock's now.
 * @module
 */
import type { Queryable } from '../store/db';
import type { ApiKeyRecord, KeyUsage } from '../keys/types';
import { periodOf } from './periods';

/** Build the `deps.usage` reader over a database and clock. */
export function keyUsageReader(db: Queryable, clock: () => number): (key: ApiKeyRecord) => Promise<KeyUsage> {
  return async function readKeyUsage(key) {
    const now = clock();
    const rows = await db.query<{ total: number; daily: number; weekly: number; monthly: number }>(
      `SELECT COALESCE(SUM(cost_usd), 0)::double precision AS total,
              COALESCE(SUM(cost_usd) FILTER (WHERE created_at >= $2), 0)::double precision AS daily,
              COALESCE(SUM(cost_usd) FILTER (WHERE created_at >= $3), 0)::double precision AS weekly,
              COALESCE(SUM(cost_usd) FILTER (WHERE created_at >= $4), 0)::double precision AS monthly
         FROM generations WHERE key_hash = $1`,
      [
        key.hash,
        new Date(periodOf('daily', now).startMs),
        new Date(periodOf('weekly', now).startMs),
        new Date(periodOf('monthly', now).startMs),
      ],
    );
    const r = rows[0];
    return {
      total: Number(r?.total ?? 0),
      daily: Number(r?.daily ?? 0),
      weekly: Number(r?.weekly ?? 0),
      monthly: Number(r?.monthly ?? 0),
    };
  };
}
