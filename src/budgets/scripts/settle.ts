/**
 * The settle script: drops a reservation's holds (and their amount from each hash's running
 * total, see `reserve.ts`) and adds the real cost to each `spent`
 * counter — but only to counters that exist. A counter Redis has lost is left missing, so the
 * next reservation rebuilds it from the usage table (which holds this request's event) instead
 * of starting from this one cost and undercounting everything before it. Releasing a
 * reservation is settling it at 0.
 *
 * KEYS: spent₁, holds₁, spent₂, holds₂, … ARGV: reservationId, actual (integer nano-USD).
 * Reply: the number of counters the cost was added to.
 * @module
 */
import type { KvScript } from '../../kv/kv';
import { HELD_FIELD, LUA_HOLD_PARTS, parseHold } from './reserve';

/** Atomic settle (or release, with 0) of one reservation. */
export const SETTLE: KvScript<number> = {
  name: 'budget_settle',
  lua: `${LUA_HOLD_PARTS}
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
    redis.call('INCRBY', KEYS[2 * i - 1], ARGV[2])
    added = added + 1
  end
end
return added
`,
  memory(data, keys, args) {
    let added = 0;
    for (let i = 0; i < keys.length; i += 2) {
      const holdsKey = keys[i + 1] as string;
      const hold = data.hget(holdsKey, args[0] as string);
      if (hold !== null) {
        data.hdel(holdsKey, args[0] as string);
        const total = data.hget(holdsKey, HELD_FIELD);
        if (total !== null) data.hset(holdsKey, HELD_FIELD, String(Math.max(0, Number(total) - parseHold(hold).amount)));
      }
      if (data.get(keys[i] as string) !== null) {
        data.incrBy(keys[i] as string, Number(args[1]));
        added++;
      }
    }
    return added;
  },
  parse(reply) {
    if (typeof reply !== 'number') throw new Error('budget_settle: malformed reply');
    return reply;
  },
};
