/**
 * The circuit breaker's atomic state changes, as Kv scripts (Lua on Redis, a twin in process),
 * so every replica sees the same circuits. Each endpoint has two circuits, each one hash:
 * - the shared circuit (KEYS[1]), which every organization obeys; it opens only on a streak of
 *   failures that came from at least two organizations (`a` the streak's first organization,
 *   `m` set once another one failed too), so one tenant's inputs cannot open it for everybody;
 * - the caller organization's own circuit (KEYS[2]), which opens on that organization's streak,
 *   so a provider that fails every request still gets skipped in a one-tenant installation.
 * Fields: `f` consecutive failures, `o` open-until (ms), `p` probe-until (ms, a half-open probe in
 * flight). Both keys carry the endpoint as a Redis Cluster hash tag. Times come from the caller's
 * clock so tests can drive cooldowns.
 * @module
 */
import type { KvScript } from '../kv/kv';
import type { MemoryData } from '../kv/memory-data';

/** Circuit state as the gauge reports it. */
export const CircuitState = { Closed: 0, HalfOpen: 1, Open: 2 } as const;
/** 0 closed, 1 half-open, 2 open. */
export type CircuitState = (typeof CircuitState)[keyof typeof CircuitState];

/** Which circuit a half-open probe was taken on: none, the shared one, or the organization's. */
export const Probe = { None: 0, Shared: 1, Org: 2 } as const;
/** 0 none, 1 shared, 2 the organization's. */
export type Probe = (typeof Probe)[keyof typeof Probe];

/** Garbage-collect idle circuit hashes after a day. */
const IDLE_TTL_MS = 86_400_000;

function parseNumbers(reply: unknown, n: number): number[] {
  const ok = Array.isArray(reply) && reply.length === n && reply.every((v) => Number.isFinite(Number(v)));
  if (!ok) throw new Error(`breaker: malformed reply ${JSON.stringify(reply)}`);
  return reply.map(Number);
}

/** One circuit's state, taking its half-open probe when the cooldown has passed (the twin of Lua's `look`). */
function look(data: MemoryData, key: string, now: number, cooldownMs: number): [CircuitState, number] {
  const f = Number(data.hget(key, 'f') ?? 0);
  const o = Number(data.hget(key, 'o') ?? 0);
  if (o === 0) return [CircuitState.Closed, f];
  if (now < o || now < Number(data.hget(key, 'p') ?? 0)) return [CircuitState.Open, f];
  data.hset(key, 'p', String(now + cooldownMs));
  data.pexpire(key, IDLE_TTL_MS);
  return [CircuitState.HalfOpen, f];
}

/**
 * May this organization call this endpoint now? Returns `[state, failures, probe]`: closed (go),
 * open (skip), or half-open (go: this caller holds the single probe of the circuit `probe` names
 * until `now + cooldown`). The shared circuit is asked first. `failures` is the longer streak.
 * KEYS: shared, organization. ARGV: now, cooldownMs.
 */
export const CHECK: KvScript<[CircuitState, number, Probe]> = {
  name: 'breaker_check',
  lua: `
local function look(key, now, cooldown)
  local f = tonumber(redis.call('HGET', key, 'f') or '0')
  local o = tonumber(redis.call('HGET', key, 'o') or '0')
  if o == 0 then return 0, f end
  if now < o then return 2, f end
  local p = tonumber(redis.call('HGET', key, 'p') or '0')
  if now < p then return 2, f end
  redis.call('HSET', key, 'p', tostring(now + cooldown))
  redis.call('PEXPIRE', key, ${IDLE_TTL_MS})
  return 1, f
end
local now, cooldown = tonumber(ARGV[1]), tonumber(ARGV[2])
local s, f = look(KEYS[1], now, cooldown)
if s ~= 0 then return {s, f, s == 1 and 1 or 0} end
local so, fo = look(KEYS[2], now, cooldown)
return {so, math.max(f, fo), so == 1 and 2 or 0}`,
  memory(data: MemoryData, keys, args) {
    const now = Number(args[0]);
    const cooldown = Number(args[1]);
    const [s, f] = look(data, keys[0] as string, now, cooldown);
    if (s !== CircuitState.Closed) return [s, f, s === CircuitState.HalfOpen ? Probe.Shared : Probe.None];
    const [so, fo] = look(data, keys[1] as string, now, cooldown);
    return [so, Math.max(f, fo), so === CircuitState.HalfOpen ? Probe.Org : Probe.None];
  },
  parse: (reply) => parseNumbers(reply, 3) as [CircuitState, number, Probe],
};

/**
 * The state this organization sees, without changing anything (no probe is taken): `[state,
 * failures]`: the worse of the two circuits (half-open when a cooldown has passed) and the longer
 * streak. For reports
 * such as the model endpoints route. KEYS: shared, organization. ARGV: now.
 */
export const PEEK: KvScript<[CircuitState, number]> = {
  name: 'breaker_peek',
  lua: `
local function peek(key, now)
  local f = tonumber(redis.call('HGET', key, 'f') or '0')
  local o = tonumber(redis.call('HGET', key, 'o') or '0')
  if o == 0 then return 0, f end
  if now < o then return 2, f end
  return 1, f
end
local now = tonumber(ARGV[1])
local s, f = peek(KEYS[1], now)
local so, fo = peek(KEYS[2], now)
return {math.max(s, so), math.max(f, fo)}`,
  memory(data: MemoryData, keys, args) {
    const now = Number(args[0]);
    const peek = (key: string): [number, number] => {
      const f = Number(data.hget(key, 'f') ?? 0);
      const o = Number(data.hget(key, 'o') ?? 0);
      return [o === 0 ? 0 : now < o ? 2 : 1, f];
    };
    const [s, f] = peek(keys[0] as string);
    const [so, fo] = peek(keys[1] as string);
    return [Math.max(s, so), Math.max(f, fo)];
  },
  parse: (reply) => parseNumbers(reply, 2) as [CircuitState, number],
};

/**
 * Count a failure of this organization's request on both circuits. The organization's circuit
 * opens at the threshold or when its probe failed; the shared one when its probe failed, or at the
 * threshold once the streak has failures from two organizations. Returns `[state, failures]`:
 * the worse state and the shared streak. KEYS: shared, organization.
 * ARGV: now, threshold, cooldownMs, probe (0 none, 1 shared, 2 organization), organization id.
 */
export const FAILURE: KvScript<[CircuitState, number]> = {
  name: 'breaker_failure',
  lua: `
local now, threshold, cooldown, probe, org = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local function open(key)
  redis.call('HSET', key, 'o', tostring(now + cooldown))
  redis.call('HDEL', key, 'p')
end
local fo = redis.call('HINCRBY', KEYS[2], 'f', 1)
local so = 0
if probe == '2' or fo >= threshold then open(KEYS[2]) so = 2 end
redis.call('PEXPIRE', KEYS[2], ${IDLE_TTL_MS})
local f = redis.call('HINCRBY', KEYS[1], 'f', 1)
local first = redis.call('HGET', KEYS[1], 'a')
if not first then redis.call('HSET', KEYS[1], 'a', org) elseif first ~= org then redis.call('HSET', KEYS[1], 'm', '1') end
local s = 0
if probe == '1' or (f >= threshold and redis.call('HGET', KEYS[1], 'm') == '1') then open(KEYS[1]) s = 2 end
redis.call('PEXPIRE', KEYS[1], ${IDLE_TTL_MS})
return {math.max(s, so), f}`,
  memory(data: MemoryData, keys, args) {
    const [now, threshold, cooldown] = [Number(args[0]), Number(args[1]), Number(args[2])];
    const probe = String(args[3]);
    const org = String(args[4]);
    const [shared, own] = [keys[0] as string, keys[1] as string];
    const open = (key: string): void => {
      data.hset(key, 'o', String(now + cooldown));
      data.hdel(key, 'p');
    };
    const fo = Number(data.hget(own, 'f') ?? 0) + 1;
    data.hset(own, 'f', String(fo));
    let so = 0;
    if (probe === '2' || fo >= threshold) {
      open(own);
      so = 2;
    }
    data.pexpire(own, IDLE_TTL_MS);
    const f = Number(data.hget(shared, 'f') ?? 0) + 1;
    data.hset(shared, 'f', String(f));
    const first = data.hget(shared, 'a');
    if (first === null) data.hset(shared, 'a', org);
    else if (first !== org) data.hset(shared, 'm', '1');
    let s = 0;
    if (probe === '1' || (f >= threshold && data.hget(shared, 'm') === '1')) {
      open(shared);
      s = 2;
    }
    data.pexpire(shared, IDLE_TTL_MS);
    return [Math.max(s, so) as CircuitState, f];
  },
  parse: (reply) => parseNumbers(reply, 2) as [CircuitState, number],
};

/** A success closes both circuits this organization sees and forgets their streaks. Returns `[0, 0]`. */
export const SUCCESS: KvScript<[CircuitState, number]> = {
  name: 'breaker_success',
  lua: `redis.call('DEL', KEYS[1], KEYS[2]) return {0, 0}`,
  memory(data: MemoryData, keys) {
    for (const key of keys) data.del(key);
    return [0, 0];
  },
  parse: (reply) => parseNumbers(reply, 2) as [CircuitState, number],
};
