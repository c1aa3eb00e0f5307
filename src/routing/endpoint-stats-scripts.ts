/**
 * Scripts over the per-minute endpoint statistics: one hash per organization and minute
 * (`endpoint-stats:{<org>}:<minute>`; the organization is the Cluster hash tag, so one read spans
 * its minutes), fields `<endpoint id>|<a|f|ms>` (attempts, failed attempts, summed milliseconds).
 * @module
 */
import type { KvScript } from '../kv/kv';

/** KEYS: one minute's hash. ARGV: ttl ms, then field/increment pairs. Adds a replica's counts. */
export const STATS_ADD: KvScript<null> = {
  name: 'endpoint_stats_add',
  lua: `for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`,
  memory(data, keys, args) {
    const key = keys[0] as string;
    for (let i = 1; i < args.length; i += 2) {
      const field = args[i] as string;
      data.hset(key, field, String(Number(data.hget(key, field) ?? 0) + Number(args[i + 1])));
    }
    data.pexpire(key, Number(args[0]));
    return 1;
  },
  parse: () => null,
};

/** KEYS: minute hashes. Reply: each one's fields and values, flattened (HGETALL), summed into one map. */
export const STATS_READ: KvScript<Map<string, number>> = {
  name: 'endpoint_stats_read',
  lua: `local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call('HGETALL', key) end
return out`,
  memory: (data, keys) => keys.map((key) => Object.entries(data.hgetall(key)).flat()),
  parse(reply) {
    if (!Array.isArray(reply)) throw new Error('endpoint_stats_read: malformed reply');
    const sums = new Map<string, number>();
    for (const flat of reply as unknown[]) {
      if (!Array.isArray(flat)) throw new Error('endpoint_stats_read: malformed reply');
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const field = String(flat[i]);
        sums.set(field, (sums.get(field) ?? 0) + Number(flat[i + 1]));
      }
    }
    return sums;
  },
};
