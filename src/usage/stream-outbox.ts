/**
 * The production outbox: a Redis Stream is the durable queue between the request path and
 * Postgres. `record` is one XADD (durable once it resolves). Every replica reads the same
 * consumer group, inserts batches (idempotent on generation id) and XACKs + XDELs only after
 * the insert committed. Entries a crashed replica read but never acknowledged are reclaimed
 * with XAUTOCLAIM once idle for `claimIdleMs`; re-inserting them is harmless (ON CONFLICT DO
 * NOTHING), so redelivery never double counts. If Redis itself refuses the XADD, the event is
 * kept in a bounded in-process buffer and written straight to Postgres by the next drain.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { evalScript } from '../kv/redis';
import { BoundedQueue } from './bounded-queue';
import { decodeUsageEvent, encodeUsageEvent } from './event-codec';
import { OutboxRecorder, type OutboxDeps, type OutboxOptions } from './outbox';
import type { UsageEvent } from './types';

/** Stream key (under the Kv prefix) and consumer group shared by every replica. */
export const USAGE_STREAM_KEY = 'usage:outbox';
export const USAGE_CONSUMER_GROUP = 'usage-writers';
/** Events the database refused for their content, kept for an operator (capped, newest kept). */
export const USAGE_DEAD_LETTER_KEY = 'usage:rejected';
const DEAD_LETTER_MAX = 10_000;

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

/** XADD every ARGV as one entry (field `e`) of KEYS[1]; the entry ids, in order. */
const XADD_ALL = `local ids = {}
for i = 1, #ARGV do ids[i] = redis.call('XADD', KEYS[1], '*', 'e', ARGV[i]) end
return ids`;

/** Stream entries per XRANGE page when listing pending events. */
const PENDING_PAGE = 1000;

/** Idle entries of dead consumers are claimed at most this many times per `claimIdleMs`. */
const CLAIMS_PER_IDLE_TIME = 4;

/** Dead consumers are looked for once every this many drains. */
const FORGET_EVERY_DRAINS = 300;

/** One stream entry: its id and the `e` field (null when the entry was deleted meanwhile). */
interface Entry {
  id: string;
  raw: string | null;
}

/** Parse XREADGROUP/XAUTOCLAIM entry lists: `[[id, [field, value, …] | null], …]`. */
function toEntries(list: unknown): Entry[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    const [id, fields] = item as [string, string[] | null];
    let raw: string | null = null;
    if (Array.isArray(fields)) {
      const at = fields.indexOf('e');
      raw = at >= 0 ? (fields[at + 1] ?? null) : null;
    }
    return { id: String(id), raw };
  });
}

/** Options of {@link StreamOutbox} beyond the shared ones. */
export interface StreamOutboxOptions extends OutboxOptions {
  /** Consumer name; default `<hostname>-<pid>-<random>` (unique per process). */
  consumer?: string;
  /**
   * Read the stream into Postgres here (default), or leave that to another consumer: the usage
   * writer thread (`writer-thread.ts`), which keeps the reads and inserts off the request thread.
   * Either way events Redis refused are written from here, where they are buffered.
   */
  consume?: boolean;
  /** Called each time another batch's worth of events has been added (to wake that consumer). */
  onBatchQueued?: () => void;
  /**
   * How long a recorded event may wait for others to share its XADD (config `usage.addLingerMs`);
   * 0 = until the end of the event-loop turn. A full batch (`batchSize`) is sent at once.
   */
  addLingerMs?: number;
}

/** Redis Stream usage outbox. */
export class StreamOutbox extends OutboxRecorder {
  private readonly key: string;
  private readonly deadLetterKey: string;
  private readonly consumer: string;
  private readonly fallback: BoundedQueue<UsageEvent>;
  private groupReady = false;
  /** Events added since the last drain was kicked; a full batch kicks one early. */
  private sinceKick = 0;
  /** Drains so far; paces the dead-consumer cleanup. */
  private drains = 0;
  /** Whether this consumer may hold entries read but not acknowledged (see drainBatch). */
  private mayHavePending = true;
  /** When dead consumers' idle entries were last claimed (Date.now()). */
  private claimedAt = -Infinity;
  /** Events waiting for the next XADD (see {@link record}). */
  private readonly adds: Array<{ event: UsageEvent; resolve: () => void }> = [];
  /** The linger timer of the waiting events, while one is set. */
  private addTimer: NodeJS.Timeout | null = null;
  private readonly addLingerMs: number;
  private readonly consume: boolean;
  private readonly onBatchQueued: (() => void) | undefined;

  /**
   * @param client - the Kv's ioredis client (`RedisKv.client`)
   * @param prefix - the Kv prefix; the stream key lives under it
   */
  constructor(
    private readonly client: Redis,
    prefix: string,
    deps: OutboxDeps,
    options: StreamOutboxOptions,
  ) {
    super(deps, options);
    this.key = prefix + USAGE_STREAM_KEY;
    this.deadLetterKey = prefix + USAGE_DEAD_LETTER_KEY;
    this.consumer = options.consumer ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.fallback = new BoundedQueue(options.maxQueued);
    this.consume = options.consume ?? true;
    this.onBatchQueued = options.onBatchQueued;
    this.addLingerMs = options.addLingerMs ?? 0;
  }

  /** Start a drain now (unless one is running or a retry backoff says wait). */
  kick(): void {
    void this.drain();
  }

  /**
   * XADD the event; durable in Redis once this resolves (else buffered and written directly).
   * Events recorded within `addLingerMs` of the first one waiting (or, with 0, in the same turn of
   * the event loop) share one round trip, and a full batch leaves at once: under load a few dozen
   * requests pay for one Redis command, its reply and its promise, instead of each turn's two or
   * three (A/B at 32 connections, 5 ms against per turn: −4 % to −18 % CPU per request, by the
   * machine's state; see bench/README.md). The answer does not wait for this, so the linger is
   * also how much longer an answered request's record sits in memory only, if the process is killed.
   */
  record(event: UsageEvent): Promise<void> {
    return new Promise<void>((resolve) => {
      this.adds.push({ event, resolve });
      if (this.adds.length >= this.options.batchSize) this.sendAddsNow();
      else if (this.adds.length === 1) {
        const linger = this.addLingerMs;
        if (linger > 0) this.addTimer = setTimeout(this.sendAddsNow, linger);
        else setImmediate(this.sendAddsNow);
      }
    });
  }

  /** Send the waiting events now, and forget their linger timer. */
  private readonly sendAddsNow = (): void => {
    this.clearLinger();
    void this.sendAdds();
  };

  private clearLinger(): void {
    if (this.addTimer) clearTimeout(this.addTimer);
    this.addTimer = null;
  }

  /** Add the waiting events to the stream; if Redis refused them, to the direct-to-database buffer. */
  private async sendAdds(): Promise<void> {
    const batch = this.adds.splice(0);
    if (batch.length === 0) return;
    const added = await this.xadds(batch.map(({ event }) => encodeUsageEvent(event)));
    for (const { event, resolve } of batch) {
      if (!added) {
        this.deps.metrics.usageWriteFailures.inc({ stage: 'enqueue' });
        await this.fallback.push(event);
      }
      this.deps.metrics.usageEventsRecorded.inc({ outbox: 'redis' });
      resolve();
    }
    this.sinceKick += batch.length;
    if (this.sinceKick >= this.options.batchSize || this.fallback.length >= this.options.batchSize) {
      this.sinceKick = 0;
      void this.drain();
      this.onBatchQueued?.();
    }
  }

  /**
   * XADD each encoded event: one command when there is one (at low load, most turns), else one
   * script that adds them all; false when Redis refused. (A pipeline of N XADDs cost the request
   * thread N commands' worth of objects, promises and replies: the script measured −7 % CPU per
   * request and a lower p99 at 32 connections.) A script that fails midway has added some
   * entries: all are then also written directly, and the insert is idempotent on the generation id.
   */
  private async xadds(encoded: string[]): Promise<boolean> {
    try {
      if (encoded.length === 1) await this.client.xadd(this.key, '*', 'e', encoded[0] as string);
      else await evalScript(this.client, XADD_ALL, [this.key], encoded);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Every event in the stream (read in pages; entries already inserted but not yet deleted are
   * included too), plus those Redis refused and those still waiting for their XADD.
   */
  async pending(): Promise<UsageEvent[]> {
    const events: UsageEvent[] = [...this.fallback.peek(this.fallback.length), ...this.adds.map((a) => a.event)];
    for (let from = '-'; ; ) {
      const page = toEntries(await this.client.xrange(this.key, from, '+', 'COUNT', PENDING_PAGE));
      for (const entry of page) {
        const event = entry.raw === null ? null : decodeUsageEvent(entry.raw);
        if (event) events.push(event);
      }
      if (page.length < PENDING_PAGE) return events;
      from = `(${(page[page.length - 1] as Entry).id}`;
    }
  }

  async depth(): Promise<number> {
    return (await this.client.xlen(this.key)) + this.fallback.length + this.adds.length;
  }

  /** Send events still waiting for their XADD first, so a shutdown flush includes them. */
  override async flush(): Promise<void> {
    this.clearLinger();
    await this.sendAdds();
    await super.flush();
  }

  protected async drainBatch(): Promise<number> {
    // 1. Events Redis refused: straight to Postgres.
    const direct = this.fallback.peek(this.options.batchSize);
    if (direct.length > 0) {
      await this.write(direct);
      this.fallback.remove(direct.length);
      return direct.length;
    }
    if (!this.consume) return 0;
    await this.ensureGroup();
    // 2. Our own pending entries (a previous insert or acknowledgement failed): looked for only
    // while some may be there, since every entry this consumer reads is in its pending list until
    // acknowledged. Each command is a round trip on the request thread (under load a drain per
    // batch of 50 made four, where two do).
    if (this.mayHavePending) {
      const pending = await this.read('0');
      if (pending.length > 0) return this.process(pending);
      this.mayHavePending = false;
    }
    if (++this.drains % FORGET_EVERY_DRAINS === 0) await this.forgetDeadConsumers();
    // 3. Idle entries of dead consumers: they become claimable only after `claimIdleMs`, so
    // looking a few times per idle time is enough (again at once after a full claim: more may wait).
    const now = Date.now();
    if (now - this.claimedAt >= this.options.claimIdleMs / CLAIMS_PER_IDLE_TIME) {
      this.claimedAt = now;
      const claimed = await this.claim();
      if (claimed.length >= this.options.batchSize) this.claimedAt = -Infinity;
      if (claimed.length > 0) return this.process(claimed);
    }
    // 4. New entries.
    return this.process(await this.read('>'));
  }

  /** The entries' events; an entry that is not one is logged and dead-lettered as it is. */
  private decodeOrSetAside(entries: Entry[]): UsageEvent[] {
    const events: UsageEvent[] = [];
    for (const entry of entries) {
      if (entry.raw === null) continue;
      const event = decodeUsageEvent(entry.raw);
      if (event) {
        events.push(event);
        continue;
      }
      this.deps.logger.error('usage outbox: undecodable stream entry moved to the dead-letter stream', { entry_id: entry.id });
      this.deps.metrics.usageWriteFailures.inc({ stage: 'rejected' });
      void this.deadLetter(entry.raw, 'not a usage event');
    }
    return events;
  }

  private deadLetter(encoded: string, error: string): Promise<unknown> {
    return this.client.xadd(this.deadLetterKey, 'MAXLEN', '~', DEAD_LETTER_MAX, '*', 'e', encoded, 'error', error.slice(0, 500)).catch(() => undefined);
  }

  protected override async rejected(event: UsageEvent, err: Error): Promise<void> {
    await super.rejected(event, err);
    await this.deadLetter(encodeUsageEvent(event), err.message);
  }

  private async ensureGroup(): Promise<void> {
    if (this.groupReady) return;
    try {
      // From 0: entries added before the group existed are consumed too.
      await this.client.xgroup('CREATE', this.key, USAGE_CONSUMER_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
    }
    this.groupReady = true;
  }

  private async read(from: '0' | '>'): Promise<Entry[]> {
    try {
      const reply = (await this.client.xreadgroup(
        'GROUP', USAGE_CONSUMER_GROUP, this.consumer, 'COUNT', this.options.batchSize, 'STREAMS', this.key, from,
      )) as Array<[string, unknown]> | null;
      return toEntries(reply?.[0]?.[1]);
    } catch (err) {
      // The stream or group vanished (FLUSHALL, key deleted): recreate on the next drain.
      if (String((err as Error).message).includes('NOGROUP')) this.groupReady = false;
      this.mayHavePending = true; // a reply lost after Redis delivered entries leaves them pending here
      throw err;
    }
  }

  /**
   * Keep the group's consumer list from growing with every restart (best effort): remove
   * consumers without pending entries idle longer than `idleMs` (default: an hour, or ten claim
   * idle times if longer).
   */
  async forgetDeadConsumers(idleMs = Math.max(this.options.claimIdleMs * 10, 3_600_000)): Promise<number> {
    const removed = await this.client
      .eval(FORGET_DEAD_CONSUMERS, 1, this.key, this.consumer, idleMs, USAGE_CONSUMER_GROUP)
      .catch(() => 0);
    return Number(removed);
  }

  private async claim(): Promise<Entry[]> {
    const reply = (await this.client.xautoclaim(
      this.key, USAGE_CONSUMER_GROUP, this.consumer, this.options.claimIdleMs, '0-0', 'COUNT', this.options.batchSize,
    )) as [string, unknown, unknown?];
    return toEntries(reply[1]);
  }

  /**
   * Insert the entries, then XACK + XDEL them all (after the insert committed). An entry is the
   * event's JSON (`encodeUsageEvent`), so the batch is the entries joined into an array, not
   * decoded and encoded again (about 4 µs an event on the event loop). An entry that is not an
   * event makes Postgres refuse the batch as data; then they are decoded and written one by one,
   * and an undecodable one is logged and kept in the dead-letter stream instead of blocking the rest.
   */
  private async process(entries: Entry[]): Promise<number> {
    if (entries.length === 0) return 0;
    try {
      const raws: string[] = [];
      for (const entry of entries) if (entry.raw !== null) raws.push(entry.raw);
      if (raws.length > 0) await this.writeJson(`[${raws.join(',')}]`, raws.length, () => this.decodeOrSetAside(entries));
    } catch (err) {
      this.mayHavePending = true; // still pending in this consumer's list: the next drain reads them again
      throw err;
    }
    const ids = entries.map((e) => e.id);
    try {
      await this.client.multi().xack(this.key, USAGE_CONSUMER_GROUP, ...ids).xdel(this.key, ...ids).exec();
    } catch (err) {
      // Written but not acknowledged: they will be re-read and re-inserted as no-ops.
      this.mayHavePending = true;
      this.deps.metrics.usageWriteFailures.inc({ stage: 'ack' });
      throw err;
    }
    return entries.length;
  }
}
