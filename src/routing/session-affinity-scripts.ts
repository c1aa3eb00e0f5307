/**
 * Session affinity's shared state as {@link KvScript}s: one key per (workspace, model, session)
 * holding the endpoint id that last answered it, expiring after a stretch without requests.
 * @module
 */
import type { KvScript } from '../kv/kv';

/**
 * KEYS: affinity. ARGV: ttl ms. Reply: the endpoint id, or null. A hit also restarts the expiry,
 * so a session expires only after the TTL without requests, and a success on the same endpoint
 * needs no write.
 */
export const AFFINITY_READ: KvScript<string | null> = {
  name: 'session_affinity_read',
  lua: `local v = redis.call('GET', KEYS[1]) if v then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return v`,
  memory(data, keys, args) {
    const key = keys[0] as string;
    const value = data.get(key);
    if (value !== null) data.pexpire(key, Number(args[0]));
    return value;
  },
  parse(reply) {
    if (reply === null || reply === undefined || reply === false) return null;
    if (typeof reply !== 'string') throw new Error('session_affinity_read: malformed reply');
    return reply;
  },
};

/** KEYS: affinity. ARGV: endpoint id, ttl ms. Points the session at the endpoint that answered it. */
export const AFFINITY_WRITE: KvScript<null> = {
  name: 'session_affinity_write',
  lua: `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`,
  memory(data, keys, args) {
    data.set(keys[0] as string, args[0] as string, Number(args[1]));
    return 1;
  },
  parse: () => null,
};
