/**
 * The circuit breaker's atomic state changes, as Kv scripts (Lua on Redis, a twin in process),
 * so every replica sees the same circuit. State per endpoint is one hash:
 * `f` consecutive failures, `o` open-until (ms), `p` probe-until (ms, a half-open probe in flight).
 * Times come from the caller's clock so tests can drive cooldowns.
 * @module
 */
import type { KvScript } from '../kv/kv';
import type { MemoryData } from '../kv/memory-data';

/** Circuit state as the gauge reports it. */
export const CircuitState = { Closed: 0, HalfOpen: 1, Open: 2 } as const;
/** 0 closed, 1 half-open, 2 open. */
export type CircuitState = (typeof CircuitState)[keyof typeof CircuitState];

/** Garbage-collect idle circuit hashes after a day. */
const IDLE_TTL_MS = 86_400_000;

function parsePair(reply: unknown): [number, number] {
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`breaker: malformed reply ${JSON.stringify(reply)}`);
  const [a, b] = reply.map(Number) as [number, number];
  if (!Number.isFinite(a) || !Number.isFinite(b)) throw new Error(`breaker: malformed reply ${JSON.stringify(reply)}`);
  return [a, b];
}

/**
 * May we call this endpoint now? Returns `[state, failures]`: closed (go), open (skip), or
 * half-open (go: this caller holds the single probe until `now + cooldown`).
 * ARGV: now, cooldownMs.
 */
export const CHECK: KvScript<[CircuitState, number]> = {
  name: 'breaker_check',
  lua: `
local f = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
local o = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')
local now = tonumber(ARGV[1])
if o == 0 then return {0, f} end
if now < o then return {2, f} end
local p = tonumber(redis.call('HGET', KEYS[1], 'p') or '0')
if now < p then return {2, f} end
redis.call('HSET', KEYS[1], 'p', tostring(now + tonumber(ARGV[2])))
redis.call('PEXPIRE', KEYS[1], ${IDLE_TTL_MS})
return {1, f}`,
  memory(data: MemoryData, keys, args) {
    const key = keys[0] as string;
    const f = Number(data.hget(key, 'f') ?? 0);
    const o = Number(data.hget(key, 'o') ?? 0);
    const now = Number(args[0]);
    if (o === 0) return [0, f];
    if (now < o) return [2, f];
    if (now < Number(data.hget(key, 'p') ?? 0)) return [2, f];
    data.hset(key, 'p', String(now + Number(args[1])));
    data.pexpire(key, IDLE_TTL_MS);
    return [1, f];
  },
  parse: (reply) => parsePair(reply) as [CircuitState, number],
};

/**
 * The circuit's state without changing it (no probe is taken): `[state, failures]`, half-open
 * when the cooldown has passed. For reports such as the model endpoints route. ARGV: now.
 */
export const PEEK: KvScript<[CircuitState, number]> = {
  name: 'breaker_peek',
  lua: `
local f = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
local o = tonumber(redis.call('HGET', KEYS[1], 'o') or '0')
if o == 0 then return {0, f} end
if tonumber(ARGV[1]) < o then return {2, f} end
return {1, f}`,
  memory(data: MemoryData, keys, args) {
    const key = keys[0] as string;
    const f = Number(data.hget(key, 'f') ?? 0);
    const o = Number(data.hget(key, 'o') ?? 0);
    if (o === 0) return [0, f];
    return Number(args[0]) < o ? [2, f] : [1, f];
  },
  parse: (reply) => parsePair(reply) as [CircuitState, number],
};

/**
 * Count a failure; opens the circuit when failures reach the threshold or when a half-open
 * probe failed. Returns `[state, failures]`. ARGV: now, threshold, cooldownMs, wasProbe (0/1).
 */
export const FAILURE: KvScript<[CircuitState, number]> = {
  name: 'breaker_failure',
  lua: `
local f = redis.call('HINCRBY', KEYS[1], 'f', 1)
local state = 0
if ARGV[4] == '1' or f >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'o', tostring(tonumber(ARGV[1]) + tonumber(ARGV[3])))
  redis.call('HDEL', KEYS[1], 'p')
  state = 2
end
redis.call('PEXPIRE', KEYS[1], ${IDLE_TTL_MS})
return {state, f}`,
  memory(data: MemoryData, keys, args) {
    const key = keys[0] as string;
    const f = Number(data.hget(key, 'f') ?? 0) + 1;
    data.hset(key, 'f', String(f));
    let state = 0;
    if (args[3] === '1' || f >= Number(args[1])) {
      data.hset(key, 'o', String(Number(args[0]) + Number(args[2])));
      data.hdel(key, 'p');
      state = 2;
    }
    data.pexpire(key, IDLE_TTL_MS);
    return [state, f];
  },
  parse: (reply) => parsePair(reply) as [CircuitState, number],
};

/** A success closes the circuit and forgets past failures. Returns `[0, 0]`. */
export const SUCCESS: KvScript<[CircuitState, number]> = {
  name: 'breaker_success',
  lua: `redis.call('DEL', KEYS[1]) return {0, 0}`,
  memory(data: MemoryData, keys) {
    data.del(keys[0] as string);
    return [0, 0];
  },
  parse: (reply) => parsePair(reply) as [CircuitState, number],
};
