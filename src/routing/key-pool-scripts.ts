/**
 * The key pools' shared state as {@link KvScript}s: one Kv key per (provider, key fingerprint)
 * holding how that key was last refused (`out:<status>`, or `rest`) and until when, expiring with
 * it. The fingerprint is a hash of the secret, so a key an operator replaces starts afresh, and
 * the store never holds a secret.
 * @module
 */
import type { KvScript } from '../kv/kv';

/** KEYS: the key's state. ARGV: state (`out:401`, `rest`), until (ms since epoch), ttl ms. */
export const KEY_MARK: KvScript<null> = {
  name: 'key_pool_mark',
  lua: `redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[3]) return 1`,
  memory(data, keys, args) {
    data.set(keys[0] as string, `${args[0]}|${args[1]}`, Number(args[2]));
    return 1;
  },
  parse: () => null,
};

/** KEYS: one state key per key of a pool. Reply: each one's `state|until`, or null where it is usable. */
export const KEY_READ: KvScript<Array<string | null>> = {
  name: 'key_pool_read',
  lua: `return redis.call('MGET', unpack(KEYS))`,
  memory(data, keys) {
    return keys.map((k) => data.get(k));
  },
  parse(reply) {
    if (!Array.isArray(reply)) throw new Error('key_pool_read: malformed reply');
    return reply.map((v: unknown) => (typeof v === 'string' ? v : null));
  },
};
