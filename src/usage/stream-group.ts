/**
 * The usage stream's consumer group, as the sweep uses it: create it once, read this consumer's
 * unacknowledged or never-delivered entries, claim dead consumers' idle ones, acknowledge and
 * delete what was written, and forget dead consumers. Commands only; when to run them is the
 * outbox's business (`stream-outbox.ts`).
 * @module
 */
import type { RedisClient } from '../kv/redis-topology';
import { toEntries, type Entry } from './stream-entries';

/**
 * Forget consumers that hold no pending entries and have been idle longer than ARGV[2] ms (dead
 * replicas: every live one reads each flush interval), never ARGV[1] itself. Atomic, so a consumer
 * cannot pick up entries between the check and the delete. Returns how many were removed.
 */
const FORGET_DEAD_CONSUMERS = `
local removed = 0
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[3])) do
  local info = {}
  for i = 1, #c, 2 do info[c[i]] = c[i + 1] end
  if info['name'] ~= ARGV[1] and tonumber(info['pending']) == 0 and tonumber(info['idle']) > tonumber(ARGV[2]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[3], info['name'])
    removed = removed + 1
  end
end
return removed`;

/** One consumer of one stream's group; reads take at most `count` entries. */
export class ConsumerGroup {
  private ready = false;

  constructor(
    private readonly client: RedisClient,
    private readonly key: string,
    private readonly name: string,
    private readonly consumer: string,
    private readonly count: number,
  ) {}

  /** Create the group (and the stream) unless it exists; from 0, so entries added before it are consumed too. */
  async ensure(): Promise<void> {
    if (this.ready) return;
    try {
      await this.client.xgroup('CREATE', this.key, this.name, '0', 'MKSTREAM');
    } catch (err) {
      if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
    }
    this.ready = true;
  }

  /** This consumer's unacknowledged entries (`0`) or entries never delivered to anyone (`>`). */
  async read(from: '0' | '>'): Promise<Entry[]> {
    try {
      const reply = (await this.client.xreadgroup(
        'GROUP',
        this.name,
        this.consumer,
        'COUNT',
        this.count,
        'STREAMS',
        this.key,
        from,
      )) as Array<[string, unknown]> | null;
      return toEntries(reply?.[0]?.[1]);
    } catch (err) {
      // The stream or group vanished (FLUSHALL, key deleted): recreate before the next read.
      if (String((err as Error).message).includes('NOGROUP')) this.ready = false;
      throw err;
    }
  }

  /** Take over entries other consumers read but left unacknowledged for `idleMs`. */
  async claim(idleMs: number): Promise<Entry[]> {
    const reply = (await this.client.xautoclaim(
      this.key,
      this.name,
      this.consumer,
      idleMs,
      '0-0',
      'COUNT',
      this.count,
    )) as [string, unknown, unknown?];
    return toEntries(reply[1]);
  }

  /** XACK + XDEL `ids` in one round trip (after their insert committed). */
  async ackAndDelete(ids: string[]): Promise<void> {
    await this.client
      .multi()
      .xack(this.key, this.name, ...ids)
      .xdel(this.key, ...ids)
      .exec();
  }

  /** Remove consumers other than this one holding nothing and idle over `idleMs` (best effort); how many. */
  async forgetDead(idleMs: number): Promise<number> {
    const removed = await this.client
      .eval(FORGET_DEAD_CONSUMERS, 1, this.key, this.consumer, idleMs, this.name)
      .catch(() => 0);
    return Number(removed);
  }
}
