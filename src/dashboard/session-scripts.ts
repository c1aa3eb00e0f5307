/**
 * The dashboard's shared state as {@link KvScript}s: session records (one key each, expiring with
 * the session) and the cookie-signing secret replicas share when the operator sets none.
 * @module
 */
import type { KvScript } from '../kv/kv';

function stringOrNull(name: string) {
  return (reply: unknown): string | null => {
    if (reply === null || reply === undefined || reply === false) return null;
    if (typeof reply !== 'string') throw new Error(`${name}: malformed reply`);
    return reply;
  };
}

/** KEYS: session. ARGV: record JSON, ttl ms. Stores a new session. */
export const SESSION_OPEN: KvScript<null> = {
  name: 'dashboard_session_open',
  lua: `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`,
  memory(data, keys, args) {
    data.set(keys[0] as string, args[0] as string, Number(args[1]));
    return 1;
  },
  parse: () => null,
};

/** KEYS: session. Reply: the record JSON, or null when it expired or was closed. */
export const SESSION_READ: KvScript<string | null> = {
  name: 'dashboard_session_read',
  lua: `return redis.call('GET', KEYS[1])`,
  memory: (data, keys) => data.get(keys[0] as string),
  parse: stringOrNull('dashboard_session_read'),
};

/** KEYS: session. Ends it (sign-out); closing a missing session is not an error. */
export const SESSION_CLOSE: KvScript<null> = {
  name: 'dashboard_session_close',
  lua: `redis.call('DEL', KEYS[1]) return 1`,
  memory(data, keys) {
    data.del(keys[0] as string);
    return 1;
  },
  parse: () => null,
};

/**
 * KEYS: secret. ARGV: a candidate secret. Reply: the shared secret, the candidate only when no
 * replica stored one first, so every replica signs and verifies with the same one.
 */
export const SECRET_SHARE: KvScript<string> = {
  name: 'dashboard_secret_share',
  lua: `redis.call('SET', KEYS[1], ARGV[1], 'NX') return redis.call('GET', KEYS[1])`,
  memory(data, keys, args) {
    const existing = data.get(keys[0] as string);
    if (existing !== null) return existing;
    data.set(keys[0] as string, args[0] as string);
    return args[0];
  },
  parse(reply) {
    const value = stringOrNull('dashboard_secret_share')(reply);
    if (value === null) throw new Error('dashboard_secret_share: no secret');
    return value;
  },
};
