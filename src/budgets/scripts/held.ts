/**
 * The held script: how much a budget's open reservations and leases hold right now (the running
 * total `reserve.ts` keeps in the holds hash), for the budget's status on read.
 *
 * KEYS: holds. Reply: integer nano-USD (0 when nothing is held).
 * @module
 */
import type { KvScript } from '../../kv/kv';
import { HELD_FIELD } from './reserve';

/** Read a holds hash's running total. */
export const HELD: KvScript<number> = {
  name: 'budget_held',
  lua: `return tonumber(redis.call('HGET', KEYS[1], '${HELD_FIELD}') or '0')`,
  memory: (data, keys) => Number(data.hget(keys[0] as string, HELD_FIELD) ?? 0),
  parse(reply) {
    if (typeof reply !== 'number') throw new Error('budget_held: malformed reply');
    return reply;
  },
};
