/**
 * The settle script: drops a reservation's holds (and their amount from each hash's running
 * total, see `reserve.ts`) and adds the real cost to each `spent`
 * counter — but only to counters that exist. A counter Redis has lost is left missing, so the
 * next reservation rebuilds it from the usage table instead of starting from this one cost and
 * undercounting everything before it; the cost goes to the holds hash's `#unrebuilt`, which that
 * rebuild adds, since this request's record may reach the table only after the rebuild's sum.
 * Releasing a reservation is settling it at 0.
 *
 * Everything that could make a write fail is checked before the first write (the amount is
 * plain digits, each counter an integer with room for it), because a Lua script is not rolled
 * back: one that failed after dropping a hold would let the request go uncharged. A malformed
 * call fails whole, leaving the hold to expire; the guard never sends one (`amounts.ts`).
 *
 * KEYS: spent₁, holds₁, spent₂, holds₂, … ARGV: reservationId, actual (integer nano-USD, at most
 * 16 digits). Reply: the number of counters the cost was added to.
 * @module
 */
import type { KvScript } from '../../kv/kv';
import { HELD_FIELD, LUA_HOLD_PARTS, UNREBUILT_FIELD, parseHold } from './reserve';

/** The most digits an amount may have (`MAX_NANOS` has 16), and the most a counter may reach. */
const MAX_DIGITS = 16;
const MAX_COUNTER = 9e18;
/** How long spend settled to a missing counter waits for its rebuild (records reach the table well within it). */
export const UNREBUILT_TTL_MS = 3_600_000;

/** Whether `arg` is an amount the settle script takes (the twin's check; the Lua checks the same). */
function isAmount(arg: unknown): boolean {
  const text = String(arg);
  return text.length <= MAX_DIGITS && /^\d+$/.test(text);
}

/** Atomic settle (or release, with 0) of one reservation. */
export const SETTLE: KvScript<number> = {
  name: 'budget_settle',
  lua: `${LUA_HOLD_PARTS}
local amount = ARGV[2]
if type(amount) ~= 'string' or #amount == 0 or #amount > ${MAX_DIGITS} or string.find(amount, '%D') then
  return redis.error_reply('budget_settle: the amount must be plain digits')
end
local add = tonumber(amount)
for i = 1, #KEYS / 2 do
  local hold = redis.call('HGET', KEYS[2 * i], ARGV[1])
  local total = redis.call('HGET', KEYS[2 * i], '${HELD_FIELD}')
  if (hold and not string.find(hold, '^%d+|%d+$')) or (total and not tonumber(total)) then
    return redis.error_reply('budget_settle: a malformed hold')
  end
  local spent = redis.call('GET', KEYS[2 * i - 1])
  if spent and (not string.find(spent, '^%-?%d+$') or tonumber(spent) + add > ${MAX_COUNTER}) then
    return redis.error_reply('budget_settle: a counter has no room for the amount')
  end
end
local added = 0
for i = 1, #KEYS / 2 do
  local hold = redis.call('HGET', KEYS[2 * i], ARGV[1])
  if hold then
    redis.call('HDEL', KEYS[2 * i], ARGV[1])
    local total = redis.call('HGET', KEYS[2 * i], '${HELD_FIELD}')
    if total then
      local left = tonumber(total) - hold_parts(hold)
      redis.call('HSET', KEYS[2 * i], '${HELD_FIELD}', string.format('%d', math.max(0, left)))
    end
  end
  if redis.call('EXISTS', KEYS[2 * i - 1]) == 1 then
    redis.call('INCRBY', KEYS[2 * i - 1], amount)
    added = added + 1
  elseif add > 0 then
    redis.call('HINCRBY', KEYS[2 * i], '${UNREBUILT_FIELD}', amount)
    if redis.call('PTTL', KEYS[2 * i]) < ${UNREBUILT_TTL_MS} then redis.call('PEXPIRE', KEYS[2 * i], ${UNREBUILT_TTL_MS}) end
  end
end
return added
`,
  memory(data, keys, args) {
    if (!isAmount(args[1])) throw new Error('budget_settle: the amount must be plain digits');
    const add = Number(args[1]);
    for (let i = 0; i < keys.length; i += 2) {
      const spent = data.get(keys[i] as string);
      if (spent !== null && !(/^-?\d+$/.test(spent) && Number(spent) + add <= MAX_COUNTER))
        throw new Error('budget_settle: a counter has no room for the amount');
    }
    let added = 0;
    for (let i = 0; i < keys.length; i += 2) {
      const holdsKey = keys[i + 1] as string;
      const hold = data.hget(holdsKey, args[0] as string);
      if (hold !== null) {
        data.hdel(holdsKey, args[0] as string);
        const total = data.hget(holdsKey, HELD_FIELD);
        if (total !== null)
          data.hset(holdsKey, HELD_FIELD, String(Math.max(0, Number(total) - parseHold(hold).amount)));
      }
      if (data.get(keys[i] as string) !== null) {
        data.incrBy(keys[i] as string, add);
        added++;
      } else if (add > 0) {
        data.hset(holdsKey, UNREBUILT_FIELD, String(Number(data.hget(holdsKey, UNREBUILT_FIELD) ?? 0) + add));
        if (data.pttl(holdsKey) < UNREBUILT_TTL_MS) data.pexpire(holdsKey, UNREBUILT_TTL_MS);
      }
    }
    return added;
  },
  parse(reply) {
    if (typeof reply !== 'number') throw new Error('budget_settle: malformed reply');
    return reply;
  },
};
