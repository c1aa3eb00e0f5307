/**
 * The per-key rate limit's two atomic steps, as Lua for Redis and twins for the in-process Kv.
 *
 * A key's window is a counter that expires `windowMs` after its first hit (a fixed window from
 * the first request, as rate-limit-redis and express-rate-limit's MemoryStore count), plus a
 * second counter of the hits replicas have leased (see `store.ts`) in that window, with the
 * same expiry. Both keys carry the API key hash as a Redis Cluster hash tag.
 *
 * HIT — KEYS: counter, leased. ARGV: windowMs, limit, hits to lease (0 = none), headroom (leases),
 * and optionally `1` for a renewal (see below).
 * Counts one hit and answers `{total, pttl, granted}`; `granted` > 0 when it also leased that many
 * hits (only while `limit - total` is at least `headroom` leases). A renewal (a store asking for
 * its next lease before the current one runs out, with no request of its own) counts no hit: it
 * leases under the same rule, only in a live window, and answers the count before the lease. Answers `{-1, pttl, 0}`, counting
 * nothing, when the hit would exceed the limit only because of hits leased and not yet returned:
 * the caller waits for leases to close and asks again, so leases never refuse a request that an
 * exact count would admit. Refused hits are counted, as every store of express-rate-limit does.
 *
 * RELEASE — KEYS: counter, leased. ARGV: unused hits, lease size, expected pttl, tolerance ms.
 * Returns a closed lease's unused hits and its size from the leased counter, only if the window
 * it was taken in is still the live one: its pttl is where the lease expects it (± tolerance). A
 * window that has ended, or a new one begun since, is left alone (answers 0).
 * @module
 */
import type { KvScript } from '../kv/kv';
import type { MemoryData } from '../kv/memory-data';

/** What HIT decided. */
export type HitReply = { kind: 'counted'; total: number; pttlMs: number; granted: number } | { kind: 'leased'; pttlMs: number };

function num(data: MemoryData, key: string): number {
  return Number(data.get(key) ?? 0);
}

/** Count one hit (and maybe lease more); see the module comment. */
export const HIT: KvScript<HitReply> = {
  name: 'rate_limit_hit',
  lua: `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[2])
local total, pttl
if ARGV[5] == '1' then
  total = count
  pttl = redis.call('PTTL', KEYS[1])
  if pttl <= 0 then return {total, pttl, 0} end
else
  if count >= limit then
    local leased = tonumber(redis.call('GET', KEYS[2]) or '0')
    if leased > 0 and count - leased < limit then
      return {-1, redis.call('PTTL', KEYS[1]), 0}
    end
  end
  total = redis.call('INCR', KEYS[1])
  pttl = redis.call('PTTL', KEYS[1])
  if pttl <= 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    pttl = tonumber(ARGV[1])
  end
end
local ask = tonumber(ARGV[3])
if ask > 0 and limit - total >= ask * tonumber(ARGV[4]) then
  redis.call('INCRBY', KEYS[1], ask)
  redis.call('INCRBY', KEYS[2], ask)
  redis.call('PEXPIRE', KEYS[2], pttl)
  return {total, pttl, ask}
end
return {total, pttl, 0}`,
  memory(data, [counter, leased], [windowMs, limitArg, askArg, headroom, renewal]) {
    const c = counter as string;
    const l = leased as string;
    const limit = Number(limitArg);
    const count = num(data, c);
    let total: number;
    let pttl = data.pttl(c);
    if (renewal === '1') {
      total = count;
      if (pttl <= 0) return [total, pttl, 0];
    } else {
      if (count >= limit) {
        const held = num(data, l);
        if (held > 0 && count - held < limit) return [-1, pttl, 0];
      }
      total = data.incrBy(c, 1);
      pttl = data.pttl(c);
      if (pttl <= 0) {
        data.pexpire(c, Number(windowMs));
        pttl = Number(windowMs);
      }
    }
    const ask = Number(askArg);
    if (ask > 0 && limit - total >= ask * Number(headroom)) {
      data.incrBy(c, ask);
      data.incrBy(l, ask);
      data.pexpire(l, pttl);
      return [total, pttl, ask];
    }
    return [total, pttl, 0];
  },
  parse(reply) {
    if (!Array.isArray(reply) || reply.length !== 3 || reply.some((x) => typeof x !== 'number')) throw new Error('rate_limit_hit: malformed reply');
    const [total, pttlMs, granted] = reply as [number, number, number];
    return total === -1 ? { kind: 'leased', pttlMs } : { kind: 'counted', total, pttlMs, granted };
  },
};

/** Return a closed lease's unused hits to its window, if that window is still live; see the module comment. */
export const RELEASE: KvScript<boolean> = {
  name: 'rate_limit_release',
  lua: `
local pttl = redis.call('PTTL', KEYS[1])
if pttl <= 0 or math.abs(pttl - tonumber(ARGV[3])) > tonumber(ARGV[4]) then return 0 end
local unused = tonumber(ARGV[1])
if unused > 0 then redis.call('DECRBY', KEYS[1], unused) end
if redis.call('DECRBY', KEYS[2], ARGV[2]) <= 0 then redis.call('DEL', KEYS[2]) end
return 1`,
  memory(data, [counter, leased], [unused, size, expected, tolerance]) {
    const c = counter as string;
    const l = leased as string;
    const pttl = data.pttl(c);
    if (pttl <= 0 || Math.abs(pttl - Number(expected)) > Number(tolerance)) return 0;
    if (Number(unused) > 0) data.incrBy(c, -Number(unused));
    if (data.incrBy(l, -Number(size)) <= 0) data.del(l);
    return 1;
  },
  parse(reply) {
    if (reply !== 0 && reply !== 1) throw new Error('rate_limit_release: malformed reply');
    return reply === 1;
  },
};

/** RESET — KEYS: counter, leased. Forgets a key's window (express-rate-limit's `resetKey`). */
export const RESET: KvScript<number> = {
  name: 'rate_limit_reset',
  lua: `return redis.call('DEL', KEYS[1], KEYS[2])`,
  memory(data, [counter, leased]) {
    const had = (data.get(counter as string) === null ? 0 : 1) + (data.get(leased as string) === null ? 0 : 1);
    data.del(counter as string);
    data.del(leased as string);
    return had;
  },
  parse(reply) {
    if (typeof reply !== 'number') throw new Error('rate_limit_reset: malformed reply');
    return reply;
  },
};

/** PEEK — KEYS: counter, leased. The window's count and pttl, or null (express-rate-limit's `get`). */
export const PEEK: KvScript<{ total: number; pttlMs: number } | null> = {
  name: 'rate_limit_peek',
  lua: `local n = redis.call('GET', KEYS[1])
if not n then return 0 end
return {tonumber(n), redis.call('PTTL', KEYS[1])}`,
  memory(data, [counter]) {
    const n = data.get(counter as string);
    return n === null ? 0 : [Number(n), data.pttl(counter as string)];
  },
  parse(reply) {
    if (reply === 0) return null;
    if (!Array.isArray(reply) || reply.length !== 2) throw new Error('rate_limit_peek: malformed reply');
    return { total: Number(reply[0]), pttlMs: Number(reply[1]) };
  },
};

/** UNCOUNT — KEYS: counter, leased. Takes back one hit of a live window (express-rate-limit's `decrement`). */
export const UNCOUNT: KvScript<number> = {
  name: 'rate_limit_uncount',
  lua: `if redis.call('PTTL', KEYS[1]) > 0 then return redis.call('DECR', KEYS[1]) end
return 0`,
  memory(data, [counter]) {
    return data.pttl(counter as string) > 0 ? data.incrBy(counter as string, -1) : 0;
  },
  parse(reply) {
    if (typeof reply !== 'number') throw new Error('rate_limit_uncount: malformed reply');
    return reply;
  },
};
