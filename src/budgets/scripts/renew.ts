/**
 * The renew script: moves a live hold's expiry forward, in every holds hash it is in, so a
 * request (or lease) that runs longer than the reservation TTL keeps its budget held for as long
 * as its replica renews it. A hold already settled (or expired and pruned) is not brought back.
 * The hashes' `#next` (a lower bound of the earliest expiry) stays a valid lower bound.
 *
 * KEYS: holds₁, holds₂, … ARGV: reservationId, expiresAtMs, holdsTtlMs. Reply: the number of
 * hashes the hold was renewed in.
 * @module
 */
import type { KvScript } from '../../kv/kv';
import { parseHold } from './reserve';

/** Atomic renewal of one hold. */
export const RENEW: KvScript<number> = {
  name: 'budget_renew',
  lua: `
local renewed = 0
for i = 1, #KEYS do
  local hold = redis.call('HGET', KEYS[i], ARGV[1])
  if hold then
    local sep = string.find(hold, '|', 1, true)
    redis.call('HSET', KEYS[i], ARGV[1], string.sub(hold, 1, sep) .. ARGV[2])
    if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
    renewed = renewed + 1
  end
end
return renewed
`,
  memory(data, keys, args) {
    const [id, expiresAt, ttl] = args as [string, string, string];
    let renewed = 0;
    for (const key of keys) {
      const hold = data.hget(key, id);
      if (hold === null) continue;
      data.hset(key, id, `${parseHold(hold).amount}|${expiresAt}`);
      if (data.pttl(key) < Number(ttl)) data.pexpire(key, Number(ttl));
      renewed++;
    }
    return renewed;
  },
  parse(reply) {
    if (typeof reply !== 'number') throw new Error('budget_renew: malformed reply');
    return reply;
  },
};
