/**
 * Scripts over the endpoint statistics: one hash per organization and minute
 * (`endpoint-stats:{<org>}:<minute>`) and per organization and hour (`…:h<hour>`); the
 * organization is the Cluster hash tag, so one read spans them all. Fields are
 * `<endpoint id>|<kind>`: `a` attempts, `f` failed attempts, `r` upstream 429s, `ms` summed
 * milliseconds, `l<i>` answered attempts in latency bucket `i` (hourly hashes hold a, f, r only).
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

/** KEYS: minute or hour hashes. Reply: each one's fields and values, flattened (HGETALL), parsed into one map per key, in order. */
export const STATS_READ: KvScript<Array<Map<string, number>>> = {
  name: 'endpoint_stats_read',
  lua: `local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call('HGETALL', key) end
return out`,
  memory: (data, keys) => keys.map((key) => Object.entries(data.hgetall(key)).flat()),
  parse(reply) {
    if (!Array.isArray(reply)) throw new Error('endpoint_stats_read: malformed reply');
    return (reply as unknown[]).map((flat) => {
      if (!Array.isArray(flat)) throw new Error('endpoint_stats_read: malformed reply');
      const fields = new Map<string, number>();
      for (let i = 0; i + 1 < flat.length; i += 2) fields.set(String(flat[i]), Number(flat[i + 1]));
      return fields;
    });
  },
};
