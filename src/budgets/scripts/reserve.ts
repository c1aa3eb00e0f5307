/**
 * The budget reservation script: checks one request's estimated cost against every spending
 * limit that applies (the workspace's budgets and the key's own limit) and, only if it fits
 * all of them, holds it on all of them — in one atomic step, so concurrent requests on any
 * number of replicas can never overspend.
 *
 * Each limit is a pair of keys for the current period: `spent` (settled spend, integer nano-USD)
 * and `holds` (a hash: reservation id → `amount|expiresAtMs`, plus the running total of the live
 * holds in `#held` and a lower bound of their earliest expiry in `#next`). The total makes a
 * reservation O(1): the holds are walked only when one may have expired (`#next` has passed, a
 * crashed request's hold), which happens about once per reservation TTL, not per request, so a
 * failed settle's leftover hold never slows later reservations. A hash from before the total
 * existed is walked once to build it.
 *
 * A missing `spent` counter (Redis lost it) is never created from nothing: the script answers
 * "missing" and the caller re-runs it with the value summed from the usage table, which the
 * script stores only if the counter is still missing (SET NX semantics), so a counter is rebuilt
 * at most once and never added twice. What was settled while the counter was missing (kept in
 * the holds hash's `#unrebuilt`, see `settle.ts`) is added to it: those requests' records may
 * reach the table only after the sum was taken, so without it they would be missed; with it,
 * one already summed is counted twice (refusing a little early), never missed (overspending).
 *
 * KEYS: spent₁, holds₁, spent₂, holds₂, …
 * ARGV: reservationId, amount, nowMs, expiresAtMs, holdsTtlMs, then per limit: limit, rebuild
 * value ('' = none), spent TTL ms (0 = none). Amounts are integer nano-USD as decimal strings.
 * Reply: {1, room} reserved (room = what the tightest limit has left) | {0, i, used} refused at
 * limit i (used = spent + held) | {3, i, used} refused only because of live leases (the caller
 * waits for them to settle and retries) | {2, i…} missing.
 * @module
 */
import type { KvScript } from '../../kv/kv';
import type { MemoryData } from '../../kv/memory-data';

/** What the reservation script decided. */
export type ReserveReply =
  /** Held; `roomNanos` is what is left under the tightest limit after this hold. */
  | { kind: 'reserved'; roomNanos: number }
  | { kind: 'refused'; index: number; usedNanos: number }
  /** It does not fit now, but would without the live leases (replica-local batches of budget, see leases.ts): retry once they are settled. */
  | { kind: 'leased'; index: number; usedNanos: number }
  | { kind: 'missing'; indexes: number[] };

const FIXED_ARGS = 5;
const PER_LIMIT = 3;

/** Hold ids of leases (see leases.ts) start with this; the refusal check tells them apart. */
export const LEASE_PREFIX = 'lease:';

/** Field names inside a holds hash; hold ids always contain `:` and never start with `#`. */
export const HELD_FIELD = '#held';
export const NEXT_FIELD = '#next';
/** Spend settled while the limit's counter was missing, for its rebuild to add. */
export const UNREBUILT_FIELD = '#unrebuilt';

/** A hold's value (`amount|expiresAtMs`) as numbers; the twins' reading of it (the Lua parses the same). */
export function parseHold(value: string): { amount: number; expiresAt: number } {
  const [amount, expiresAt] = value.split('|');
  return { amount: Number(amount), expiresAt: Number(expiresAt) };
}

/** Lua: a hold's value (`amount|expiresAtMs`) as two numbers; shared by the reserve and settle scripts. */
export const LUA_HOLD_PARTS = `
local function hold_parts(v)
  local sep = string.find(v, '|', 1, true)
  return tonumber(string.sub(v, 1, sep - 1)), tonumber(string.sub(v, sep + 1))
end
`;

const LUA = `${LUA_HOLD_PARTS}
local function held_on(key, now)
  local total = redis.call('HGET', key, '${HELD_FIELD}')
  local nxt = redis.call('HGET', key, '${NEXT_FIELD}')
  if total and (not nxt or tonumber(nxt) > now) then return tonumber(total) end
  if not total and redis.call('HLEN', key) == 0 then return 0 end
  local sum, earliest = 0, nil
  local all = redis.call('HGETALL', key)
  for j = 1, #all, 2 do
    local f, v = all[j], all[j + 1]
    if string.byte(f, 1) ~= 35 then
      local amount, e = hold_parts(v)
      if e <= now then
        redis.call('HDEL', key, f)
      else
        sum = sum + amount
        if not earliest or e < earliest then earliest = e end
      end
    end
  end
  if earliest then
    redis.call('HSET', key, '${HELD_FIELD}', string.format('%d', sum), '${NEXT_FIELD}', string.format('%d', earliest))
  else
    redis.call('HDEL', key, '${HELD_FIELD}', '${NEXT_FIELD}')
  end
  return sum
end

local function leased_on(key, now)
  local sum = 0
  local all = redis.call('HGETALL', key)
  for j = 1, #all, 2 do
    if string.sub(all[j], 1, ${LEASE_PREFIX.length}) == '${LEASE_PREFIX}' then
      local amount, e = hold_parts(all[j + 1])
      if e > now then sum = sum + amount end
    end
  end
  return sum
end

local n = #KEYS / 2
local id, amount, now = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local spent, missing = {}, {}
for i = 1, n do
  local base = ${FIXED_ARGS} + (i - 1) * ${PER_LIMIT}
  local v = redis.call('GET', KEYS[2 * i - 1])
  if not v then
    local rebuild = ARGV[base + 2]
    if rebuild == '' then
      missing[#missing + 1] = i
    else
      local unrebuilt = redis.call('HGET', KEYS[2 * i], '${UNREBUILT_FIELD}')
      if unrebuilt and tonumber(unrebuilt) then
        rebuild = string.format('%d', tonumber(rebuild) + tonumber(unrebuilt))
      end
      redis.call('HDEL', KEYS[2 * i], '${UNREBUILT_FIELD}')
      local ttl = tonumber(ARGV[base + 3])
      if ttl > 0 then redis.call('SET', KEYS[2 * i - 1], rebuild, 'PX', ARGV[base + 3])
      else redis.call('SET', KEYS[2 * i - 1], rebuild) end
      v = rebuild
    end
  end
  spent[i] = tonumber(v or '0')
end
if #missing > 0 then
  local reply = {2}
  for _, i in ipairs(missing) do reply[#reply + 1] = i end
  return reply
end
local room = nil
for i = 1, n do
  local limit = tonumber(ARGV[${FIXED_ARGS} + (i - 1) * ${PER_LIMIT} + 1])
  local used = spent[i] + held_on(KEYS[2 * i], now)
  if used >= limit or used + amount > limit then
    local unleased = used - leased_on(KEYS[2 * i], now)
    if unleased < limit and unleased + amount <= limit then return {3, i, used} end
    return {0, i, used}
  end
  if not room or limit - used - amount < room then room = limit - used - amount end
end
local expires = tonumber(ARGV[4])
local hold = ARGV[2] .. '|' .. ARGV[4]
for i = 1, n do
  local key = KEYS[2 * i]
  redis.call('HSET', key, id, hold)
  redis.call('HINCRBY', key, '${HELD_FIELD}', ARGV[2])
  local nxt = redis.call('HGET', key, '${NEXT_FIELD}')
  if not nxt or expires < tonumber(nxt) then redis.call('HSET', key, '${NEXT_FIELD}', ARGV[4]) end
  if redis.call('PTTL', key) < tonumber(ARGV[5]) then redis.call('PEXPIRE', key, ARGV[5]) end
end
return {1, room}
`;

/** The twin of `held_on`: the live holds' total, walking (and pruning) them only when due. */
function heldOn(data: MemoryData, key: string, now: number): number {
  const total = data.hget(key, HELD_FIELD);
  const next = data.hget(key, NEXT_FIELD);
  if (total !== null && (next === null || Number(next) > now)) return Number(total);
  const all = data.hgetall(key);
  let sum = 0;
  let earliest: number | null = null;
  for (const [field, value] of Object.entries(all)) {
    if (field.startsWith('#')) continue;
    const hold = parseHold(value);
    if (hold.expiresAt <= now) data.hdel(key, field);
    else {
      sum += hold.amount;
      earliest = earliest === null ? hold.expiresAt : Math.min(earliest, hold.expiresAt);
    }
  }
  if (earliest === null) {
    data.hdel(key, HELD_FIELD);
    data.hdel(key, NEXT_FIELD);
  } else {
    data.hset(key, HELD_FIELD, String(sum));
    data.hset(key, NEXT_FIELD, String(earliest));
  }
  return sum;
}

/** The twin of `leased_on`: the live leases' total (a walk; only on the way to a refusal). */
function leasedOn(data: MemoryData, key: string, now: number): number {
  let sum = 0;
  for (const [field, value] of Object.entries(data.hgetall(key))) {
    const hold = parseHold(value);
    if (field.startsWith(LEASE_PREFIX) && hold.expiresAt > now) sum += hold.amount;
  }
  return sum;
}

/** The twin: the same steps over the in-process data. */
function memory(data: MemoryData, keys: string[], args: string[]): unknown {
  const n = keys.length / 2;
  const [id, amountArg, nowArg, expiresAt, holdsTtl] = args as [string, string, string, string, string];
  const amount = Number(amountArg);
  const now = Number(nowArg);
  const spent: number[] = [];
  const missing: number[] = [];
  for (let i = 1; i <= n; i++) {
    const base = FIXED_ARGS + (i - 1) * PER_LIMIT;
    const spentKey = keys[2 * i - 2] as string;
    let v = data.get(spentKey);
    if (v === null) {
      let rebuild = args[base + 1] as string;
      if (rebuild === '') missing.push(i);
      else {
        const holdsKey = keys[2 * i - 1] as string;
        const unrebuilt = Number(data.hget(holdsKey, UNREBUILT_FIELD) ?? 0);
        if (Number.isFinite(unrebuilt)) rebuild = String(Number(rebuild) + unrebuilt);
        data.hdel(holdsKey, UNREBUILT_FIELD);
        const ttl = Number(args[base + 2]);
        data.set(spentKey, rebuild, ttl > 0 ? ttl : undefined);
        v = rebuild;
      }
    }
    spent[i] = Number(v ?? '0');
  }
  if (missing.length > 0) return [2, ...missing];
  let room: number | null = null;
  for (let i = 1; i <= n; i++) {
    const limit = Number(args[FIXED_ARGS + (i - 1) * PER_LIMIT]);
    const used = (spent[i] as number) + heldOn(data, keys[2 * i - 1] as string, now);
    if (used >= limit || used + amount > limit) {
      const unleased = used - leasedOn(data, keys[2 * i - 1] as string, now);
      return unleased < limit && unleased + amount <= limit ? [3, i, used] : [0, i, used];
    }
    room = room === null ? limit - used - amount : Math.min(room, limit - used - amount);
  }
  for (let i = 1; i <= n; i++) {
    const holdsKey = keys[2 * i - 1] as string;
    data.hset(holdsKey, id, `${amountArg}|${expiresAt}`);
    data.hset(holdsKey, HELD_FIELD, String(Number(data.hget(holdsKey, HELD_FIELD) ?? 0) + amount));
    const next = data.hget(holdsKey, NEXT_FIELD);
    if (next === null || Number(expiresAt) < Number(next)) data.hset(holdsKey, NEXT_FIELD, expiresAt);
    if (data.pttl(holdsKey) < Number(holdsTtl)) data.pexpire(holdsKey, Number(holdsTtl));
  }
  return [1, room];
}

/** Atomic check-and-hold of one request's estimate against every applicable limit. */
export const RESERVE: KvScript<ReserveReply> = {
  name: 'budget_reserve',
  lua: LUA,
  memory,
  parse(reply) {
    if (!Array.isArray(reply) || reply.length === 0) throw new Error('budget_reserve: malformed reply');
    const nums = reply.map(Number);
    if (nums.some((x) => !Number.isFinite(x))) throw new Error('budget_reserve: malformed reply');
    if (nums[0] === 1) return { kind: 'reserved', roomNanos: nums[1] ?? 0 };
    if ((nums[0] === 0 || nums[0] === 3) && nums.length === 3)
      return { kind: nums[0] === 0 ? 'refused' : 'leased', index: nums[1] as number, usedNanos: nums[2] as number };
    if (nums[0] === 2 && nums.length > 1) return { kind: 'missing', indexes: nums.slice(1) };
    throw new Error('budget_reserve: malformed reply');
  },
};
