/**
 * The production outbox: a Redis Stream is the durable queue between the request path and
 * Postgres. Events recorded close together share one XADD (one entry, a JSON array), durable once
 * `record` resolves. The replica that added an entry inserts it from memory and XDELs it once the
 * insert committed, so its own entries are never read back. The stream is read (a consumer group
 * shared by every replica) only for what no live replica holds: a crashed replica's entries and
 * those a replica let go of during a long database outage. That read, the sweep, runs every
 * `claimIdleMs / 4` and on flush; entries a consumer read but never acknowledged are reclaimed
 * with XAUTOCLAIM once idle for `claimIdleMs`. Every insert is `ON CONFLICT (id) DO NOTHING`, so
 * an entry written twice (by its replica and a sweep, or after a lost reply) counts once.
 * If Redis refuses the XADD, the events are kept in a bounded in-process buffer and written
 * straight to Postgres by the next drain.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisClient } from '../kv/redis-topology';
import { errorFields } from '../observability/error-fields';
import { BoundedQueue } from './bounded-queue';
import { LingerBatch } from './linger-batch';
import { OutboxRecorder, type OutboxDeps, type OutboxOptions } from './outbox';
import { ConsumerGroup } from './stream-group';
import {
  COUNT_FIELD,
  EVENTS_FIELD,
  decodeEntry,
  firstBatch,
  spliceJson,
  toEntries,
  type Entry,
} from './stream-entries';
import type { UsageEvent } from './types';

/** Stream key (under the Kv prefix) and consumer group shared by every replica. */
export const USAGE_STREAM_KEY = 'usage:events';
export const USAGE_CONSUMER_GROUP = 'usage-writers';
/** Events the database refused for their content, kept for an operator (capped, newest kept). */
export const USAGE_DEAD_LETTER_KEY = 'usage:rejected';
const DEAD_LETTER_MAX = 10_000;

/** Stream entries per XRANGE page when listing pending events. */
const PENDING_PAGE = 1000;

/** Sweeps (and claims of dead consumers' idle entries) run this many times per `claimIdleMs`. */
const SWEEPS_PER_IDLE_TIME = 4;

/** Dead consumers are looked for at most this often. */
const FORGET_INTERVAL_MS = 5 * 60_000;

/**
 * Entries a replica keeps in memory to insert itself, in batches of `batchSize` events. Beyond
 * that (a long database outage) the oldest are let go of: they stay in the stream for a sweep.
 */
const OWN_MAX_BATCHES = 20;

/** Options of {@link StreamOutbox} beyond the shared ones. */
export interface StreamOutboxOptions extends OutboxOptions {
  /** Consumer name; default `<hostname>-<pid>-<random>` (unique per process). */
  consumer?: string;
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
  private readonly group: ConsumerGroup;
  private readonly fallback: BoundedQueue<UsageEvent>;
  /** Events waiting for the next XADD (see {@link record}). */
  private readonly adds: LingerBatch<UsageEvent>;
  /** Entries this replica added and has yet to insert, oldest first, and their events. */
  private readonly own: Entry[] = [];
  private ownEvents = 0;
  private readonly sweepIntervalMs: number;
  /** When the stream was last swept, dead consumers' entries claimed, dead consumers forgotten (Date.now()). */
  private sweptAt = -Infinity;
  private claimedAt = -Infinity;
  private forgotAt = -Infinity;
  /** Whether this consumer may hold entries it read and has not acknowledged (true until a read of them finds none). */
  private mayHavePending = true;

  /**
   * @param client - the Kv's ioredis client (`RedisKv.connection`)
   * @param prefix - the Kv prefix; the stream key lives under it
   */
  constructor(
    private readonly client: RedisClient,
    prefix: string,
    deps: OutboxDeps,
    options: StreamOutboxOptions,
  ) {
    super(deps, options);
    this.key = prefix + USAGE_STREAM_KEY;
    this.deadLetterKey = prefix + USAGE_DEAD_LETTER_KEY;
    const consumer = options.consumer ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.group = new ConsumerGroup(client, this.key, USAGE_CONSUMER_GROUP, consumer, options.batchSize);
    this.fallback = new BoundedQueue(options.maxQueued);
    this.sweepIntervalMs = options.claimIdleMs / SWEEPS_PER_IDLE_TIME;
    this.adds = new LingerBatch(options.batchSize, options.addLingerMs ?? 0, (batch) => this.sendAdds(batch));
  }

  /**
   * XADD the event; durable in Redis once this resolves (else buffered and written directly).
   * Events recorded within `addLingerMs` of the first one waiting share one XADD, so under load
   * many requests pay for one Redis command. With `usage.answerAfterRecord` (the default) the
   * answer waits for this; with it off, the linger is also how long an answered request's record
   * sits in memory only, if the process is killed.
   */
  record(event: UsageEvent): Promise<void> {
    return this.adds.add(event);
  }

  /**
   * Add the waiting events as one entry (kept to insert from here); if Redis refused it, to the
   * direct buffer. A batch's worth waiting starts a drain without waiting for the timer.
   */
  private async sendAdds(events: UsageEvent[]): Promise<void> {
    const json = JSON.stringify(events);
    const id = await this.client
      .xadd(this.key, '*', EVENTS_FIELD, json, COUNT_FIELD, String(events.length))
      .catch(() => null);
    if (id !== null) this.keep({ id, json, count: events.length });
    else {
      this.deps.metrics.usageWriteFailures.inc({ stage: 'enqueue' }, events.length);
      for (const event of events) await this.fallback.push(event);
    }
    this.deps.metrics.usageEventsRecorded.inc({ outbox: 'redis' }, events.length);
    if (this.ownEvents >= this.options.batchSize || this.fallback.length >= this.options.batchSize) void this.drain();
  }

  /** Hold an entry this replica added, to insert it itself; beyond the bound the oldest are left to a sweep. */
  private keep(entry: Entry): void {
    this.own.push(entry);
    this.ownEvents += entry.count;
    while (this.ownEvents > OWN_MAX_BATCHES * this.options.batchSize && this.own.length > 1) {
      this.ownEvents -= (this.own.shift() as Entry).count;
    }
  }

  /** Stop holding the entries `ids` (written, by this replica or by a sweep that read them). */
  private forgetOwn(ids: ReadonlySet<string>): void {
    let kept = 0;
    for (const entry of this.own) {
      if (ids.has(entry.id)) this.ownEvents -= entry.count;
      else this.own[kept++] = entry;
    }
    this.own.length = kept;
  }

  /**
   * Every event in the stream (read in pages; entries already inserted but not yet deleted are
   * included too), plus those Redis refused and those still waiting for their XADD.
   */
  async pending(): Promise<UsageEvent[]> {
    const events: UsageEvent[] = [...this.fallback.peek(this.fallback.length), ...this.adds.items()];
    for (let from = '-'; ;) {
      const page = toEntries(await this.client.xrange(this.key, from, '+', 'COUNT', PENDING_PAGE));
      for (const entry of page) events.push(...decodeEntry(entry.json).events);
      if (page.length < PENDING_PAGE) break;
      from = `(${(page[page.length - 1] as Entry).id}`;
    }
    return events;
  }

  /** Stream entries (each up to `batchSize` events) plus events buffered in this process. */
  async depth(): Promise<number> {
    return (await this.client.xlen(this.key)) + this.fallback.length + this.adds.length;
  }

  /** Send events still waiting for their XADD first, so a shutdown flush includes them. */
  override async flush(): Promise<void> {
    await this.adds.flush();
    await super.flush();
  }

  protected async drainBatch(flushing: boolean): Promise<number> {
    // 1. Events Redis refused: straight to Postgres.
    const direct = this.fallback.peek(this.options.batchSize);
    if (direct.length > 0) {
      await this.write(direct);
      this.fallback.remove(direct.length);
      return direct.length;
    }
    // 2. Entries this replica added, from memory; 3. the stream, for what no live replica holds,
    // once per sweep interval even while the replica is busy with its own (and again at once
    // after a full read: more may wait). A flush writes its own first, then sweeps until empty.
    const now = Date.now();
    const sweepDue = flushing || now - this.sweptAt >= this.sweepIntervalMs;
    if (this.own.length > 0 && (flushing || !sweepDue)) return this.insertOwn();
    if (!sweepDue) return 0;
    this.sweptAt = now;
    const { events, more } = await this.sweep(now);
    if (more) this.sweptAt = -Infinity;
    return events > 0 || this.own.length === 0 ? events : this.insertOwn();
  }

  /** Insert the oldest batch of this replica's own entries, then XDEL them (after the insert committed). */
  private async insertOwn(): Promise<number> {
    const { batch, events } = firstBatch(this.own, this.options.batchSize);
    await this.writeJson(spliceJson(batch), events, () => batch.flatMap((e) => decodeEntry(e.json).events));
    const ids = batch.map((e) => e.id);
    this.forgetOwn(new Set(ids));
    try {
      await this.client.xdel(this.key, ...ids);
    } catch (err) {
      // Written but still in the stream: a sweep inserts them again as no-ops and deletes them.
      this.deps.metrics.usageWriteFailures.inc({ stage: 'ack' });
      throw err;
    }
    return events;
  }

  /**
   * One read of the stream: this consumer's unacknowledged entries (only while there may be some:
   * every entry it reads stays pending until acknowledged), else dead consumers' idle ones (once
   * per sweep interval), else entries never delivered. `more` when a read was full.
   */
  private async sweep(now: number): Promise<{ events: number; more: boolean }> {
    await this.group.ensure();
    if (now - this.forgotAt >= FORGET_INTERVAL_MS) {
      this.forgotAt = now;
      await this.forgetDeadConsumers();
    }
    if (this.mayHavePending) {
      const pending = await this.read('0');
      if (pending.length > 0) return { events: await this.process(pending), more: true };
      this.mayHavePending = false;
    }
    if (now - this.claimedAt >= this.sweepIntervalMs) {
      this.claimedAt = now;
      const claimed = await this.group.claim(this.options.claimIdleMs);
      if (claimed.length >= this.options.batchSize) this.claimedAt = -Infinity;
      if (claimed.length > 0) return { events: await this.process(claimed), more: true };
    }
    const fresh = await this.read('>');
    return { events: await this.process(fresh), more: fresh.length >= this.options.batchSize };
  }

  private async read(from: '0' | '>'): Promise<Entry[]> {
    try {
      return await this.group.read(from);
    } catch (err) {
      this.mayHavePending = true; // a reply lost after Redis delivered entries leaves them pending here
      throw err;
    }
  }

  /**
   * Write the events of entries read from the stream (decoded and checked: what is not an event
   * is logged and set aside in the dead-letter stream instead of blocking the rest), in batches
   * of `batchSize`, then XACK + XDEL the entries (after the inserts committed).
   */
  private async process(entries: Entry[]): Promise<number> {
    if (entries.length === 0) return 0;
    const events: UsageEvent[] = [];
    const foreign: Array<{ id: string; text: string }> = [];
    for (const entry of entries) {
      const decoded = decodeEntry(entry.json);
      events.push(...decoded.events);
      for (const text of decoded.foreign) foreign.push({ id: entry.id, text });
    }
    try {
      for (let i = 0; i < events.length; i += this.options.batchSize)
        await this.write(events.slice(i, i + this.options.batchSize));
    } catch (err) {
      this.mayHavePending = true; // still pending in this consumer's list: the next sweep reads them again
      throw err;
    }
    for (const { id, text } of foreign) {
      this.deps.logger.error('usage outbox: undecodable stream entry moved to the dead-letter stream', {
        entry_id: id,
      });
      this.deps.metrics.usageWriteFailures.inc({ stage: 'rejected' });
      await this.deadLetter(text, 'not a usage event');
    }
    const ids = entries.map((e) => e.id);
    this.forgetOwn(new Set(ids)); // a sweep may have read entries this replica was about to insert
    try {
      await this.group.ackAndDelete(ids);
    } catch (err) {
      // Written but not acknowledged: they will be re-read and re-inserted as no-ops.
      this.mayHavePending = true;
      this.deps.metrics.usageWriteFailures.inc({ stage: 'ack' });
      throw err;
    }
    // Entries deleted meanwhile count too: a read that found only those still took care of something.
    return Math.max(events.length, entries.length);
  }

  /** Keep what the database or the decoder refused in the dead-letter stream; a failure there is logged and counted. */
  private async deadLetter(text: string, error: string): Promise<void> {
    try {
      await this.client.xadd(
        this.deadLetterKey,
        'MAXLEN',
        '~',
        DEAD_LETTER_MAX,
        '*',
        EVENTS_FIELD,
        text,
        'error',
        error.slice(0, 500),
      );
    } catch (err) {
      this.deps.metrics.usageWriteFailures.inc({ stage: 'dead_letter' });
      this.deps.logger.warn('usage outbox: could not add to the dead-letter stream (the record is in this log only)', {
        record: text.slice(0, 2000),
        error: errorFields(err),
      });
    }
  }

  protected override async rejected(event: UsageEvent, err: Error): Promise<void> {
    await super.rejected(event, err);
    await this.deadLetter(JSON.stringify(event), err.message);
  }

  /**
   * Keep the group's consumer list from growing with every restart (best effort): remove
   * consumers without pending entries idle longer than `idleMs` (default: an hour, or ten claim
   * idle times if longer).
   */
  forgetDeadConsumers(idleMs = Math.max(this.options.claimIdleMs * 10, 3_600_000)): Promise<number> {
    return this.group.forgetDead(idleMs);
  }
}
