/**
 * The production outbox: a Redis Stream is the durable queue between the request path and
 * Postgres. Events recorded close together share one XADD: one entry holds them all, durable
 * once `record` resolves. The replica that added an entry inserts it from memory (it still holds
 * the encoded events and the entry id) and XDELs it once the insert committed, so its own
 * entries are never read back. The stream is read (a consumer group shared by every replica)
 * only for what no live replica holds: a crashed replica's entries and those a replica let go of
 * during a long database outage. That read, the sweep, runs every `claimIdleMs / 4` and on
 * flush; entries a replica read but never acknowledged are reclaimed with XAUTOCLAIM once idle
 * for `claimIdleMs`. Entries hold the events as COPY rows (row-codec.ts), loaded with one COPY
 * per batch. A sweep may read an entry its replica is still inserting: a COPY holding rows already
 * written is refused whole, and that batch is then inserted with ON CONFLICT DO NOTHING on the
 * generation id, so nothing is double counted.
 * If Redis itself refuses the XADD, the events are kept in a bounded in-process buffer and
 * written straight to Postgres by the next drain. The stream of earlier builds (JSON entries, under
 * another key, so their replicas never sweep an entry they cannot read) is swept too.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { BoundedQueue } from './bounded-queue';
import { encodeUsageEvent } from './event-codec';
import { encodeUsageRow } from './row-codec';
import { batchJson, byWritePath, decodeEntry, eventCount, firstBatch, toEntries, type Entry } from './stream-entries';
import { ConsumerGroup, SweptStream } from './stream-group';
import { LingerBatch, type Waiting } from './linger-batch';
import { OutboxRecorder, type OutboxDeps, type OutboxOptions } from './outbox';
import type { UsageEvent } from './types';

/**
 * Stream key (under the Kv prefix) and consumer group shared by every replica. The stream of COPY
 * rows has a key of its own: replicas of earlier builds sweep `usage:outbox` and would acknowledge
 * and delete entries of a format they cannot read, so during a rolling upgrade they must never
 * see one.
 */
export const USAGE_STREAM_KEY = 'usage:rows';
export const USAGE_CONSUMER_GROUP = 'usage-writers';
/**
 * The stream of earlier builds (JSON entries, field `e`): still swept, so what their replicas
 * added (during a rolling upgrade, or left behind by one that died) is written too.
 */
export const LEGACY_USAGE_STREAM_KEY = 'usage:outbox';
/** Events the database refused for their content, kept for an operator (capped, newest kept). */
export const USAGE_DEAD_LETTER_KEY = 'usage:rejected';
const DEAD_LETTER_MAX = 10_000;

/** Stream entries per XRANGE page when listing pending events. */
const PENDING_PAGE = 1000;

/** Idle entries of dead consumers are claimed at most this many times per `claimIdleMs`; sweeps run as often. */
const CLAIMS_PER_IDLE_TIME = 4;

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
   * Insert this outbox's entries into Postgres and sweep the stream (default), or leave that to
   * another consumer: the usage writer thread (`writer-thread.ts`), which keeps the reads and
   * inserts off the request thread. Either way events Redis refused are written from here, where
   * they are buffered.
   */
  consume?: boolean;
  /**
   * How often the stream is swept for entries no live replica holds; default `claimIdleMs / 4`.
   * 0 = on every drain: the writer thread, whose events all come from the stream.
   */
  sweepIntervalMs?: number;
  /** Called each time another batch's worth of events has been added (to wake that consumer). */
  onBatchQueued?: () => void;
  /**
   * How long a recorded event may wait for others to share its XADD (config `usage.addLingerMs`);
   * 0 = until the end of the event-loop turn. A full batch (`batchSize`) is sent at once. At
   * moderate rates it bounds this replica's XADDs per second, each of which wakes Redis and then
   * this thread for the reply.
   */
  addLingerMs?: number;
}

/** Redis Stream usage outbox. */
export class StreamOutbox extends OutboxRecorder {
  /** The stream this replica adds to, and the earlier builds' one it only sweeps. */
  private readonly current: SweptStream;
  private readonly legacy: SweptStream;
  private readonly deadLetterKey: string;
  private readonly fallback: BoundedQueue<UsageEvent>;
  /** Events added since the last drain was kicked; a full batch kicks one early. */
  private sinceKick = 0;
  /** When the streams were last swept, the earlier builds' stream looked at, dead consumers forgotten (Date.now()). */
  private sweptAt = -Infinity;
  private legacyCheckedAt = -Infinity;
  private forgotAt = -Infinity;
  /** Entries this replica added and has yet to insert, oldest first, and their events. */
  private readonly own: Entry[] = [];
  private ownEvents = 0;
  /** Events waiting for the next XADD (see {@link record}). */
  private readonly adds: LingerBatch<UsageEvent>;
  private readonly consume: boolean;
  private readonly sweepIntervalMs: number;
  /** How often dead consumers' idle entries are claimed, and the earlier builds' stream looked at. */
  private readonly claimIntervalMs: number;
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
    this.deadLetterKey = prefix + USAGE_DEAD_LETTER_KEY;
    const consumer = options.consumer ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    const swept = (key: string) => new SweptStream(key, new ConsumerGroup(client, key, USAGE_CONSUMER_GROUP, consumer, options.batchSize));
    this.current = swept(prefix + USAGE_STREAM_KEY);
    this.legacy = swept(prefix + LEGACY_USAGE_STREAM_KEY);
    this.fallback = new BoundedQueue(options.maxQueued);
    this.consume = options.consume ?? true;
    this.claimIntervalMs = options.claimIdleMs / CLAIMS_PER_IDLE_TIME;
    this.sweepIntervalMs = options.sweepIntervalMs ?? this.claimIntervalMs;
    this.onBatchQueued = options.onBatchQueued;
    this.adds = new LingerBatch(options.batchSize, options.addLingerMs ?? 0, (batch) => this.sendAdds(batch));
  }

  /** Start a drain now (unless one is running or a retry backoff says wait). */
  kick(): void {
    void this.drain();
  }

  /**
   * XADD the event; durable in Redis once this resolves (else buffered and written directly).
   * Events recorded within `addLingerMs` of the first one waiting (or, with 0, in the same turn of
   * the event loop) share one round trip and one entry, and a full batch leaves at once: under
   * load a few dozen requests pay for one Redis command, its reply and its promise, instead of
   * each turn's two or three (A/B at 32 connections, 5 ms against per turn: −4 % to −18 % CPU per
   * request, by the machine's state; see bench/README.md). The answer does not wait for this, so
   * the linger is also how much longer an answered request's record sits in memory only, if the
   * process is killed.
   */
  record(event: UsageEvent): Promise<void> {
    return this.adds.add(event);
  }

  /**
   * Add the waiting events to the stream as one entry (kept to insert from here); if Redis
   * refused it, to the direct-to-database buffer.
   */
  private async sendAdds(batch: Array<Waiting<UsageEvent>>): Promise<void> {
    const bytes = Buffer.from(batch.map(({ item }) => encodeUsageRow(item)).join(''));
    const id = await this.xadd(bytes, batch.length);
    if (id !== null && this.consume) this.keep({ id, raw: bytes, format: 'rows', count: batch.length });
    for (const { item, resolve } of batch) {
      if (id === null) {
        this.deps.metrics.usageWriteFailures.inc({ stage: 'enqueue' });
        await this.fallback.push(item);
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
   * XADD the encoded events as one entry (`r`: their COPY rows, `n`: how many); its id, or null
   * when Redis refused. One command whatever the count: a script adding an entry per event cost
   * Redis about 8 µs of CPU per request at 32 connections, this about 2.
   */
  private async xadd(bytes: Buffer, count: number): Promise<string | null> {
    try {
      return await this.client.xadd(this.current.key, '*', 'r', bytes, 'n', String(count));
    } catch {
      return null;
    }
  }

  /** Hold an entry this replica added, to insert it itself; beyond the bound the oldest are left to a sweep. */
  private keep(entry: Entry): void {
    this.own.push(entry);
    this.ownEvents += entry.count;
    while (this.ownEvents > OWN_MAX_BATCHES * this.options.batchSize && this.own.length > 1) {
      this.ownEvents -= (this.own.shift() as Entry).count;
    }
  }

  /**
   * Every event in the stream (read in pages; entries already inserted but not yet deleted are
   * included too), plus those Redis refused and those still waiting for their XADD.
   */
  async pending(): Promise<UsageEvent[]> {
    const events: UsageEvent[] = [...this.fallback.peek(this.fallback.length), ...this.adds.items()];
    for (const { key } of [this.current, this.legacy]) {
      for (let from = '-'; ; ) {
        const page = toEntries(await this.client.xrange(key, from, '+', 'COUNT', PENDING_PAGE));
        for (const entry of page) events.push(...decodeEntry(entry).events);
        if (page.length < PENDING_PAGE) break;
        from = `(${(page[page.length - 1] as Entry).id}`;
      }
    }
    return events;
  }

  /**
   * Stream entries (each holds the events of one XADD, up to `batchSize`) plus events buffered
   * in this process: what waits to be written, counted without reading the stream.
   */
  async depth(): Promise<number> {
    const [current, legacy] = await Promise.all([this.client.xlen(this.current.key), this.client.xlen(this.legacy.key)]);
    return current + legacy + this.fallback.length + this.adds.length;
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
      await this.copyEvents(direct);
      this.fallback.remove(direct.length);
      return direct.length;
    }
    if (!this.consume) return 0;
    // 2. Entries this replica added, from memory; 3. the stream, for what no live replica holds,
    // once per sweep interval even while the replica is busy with its own (and again at once
    // after a full read: more may wait). A flush writes its own first, then sweeps until empty.
    const now = Date.now();
    const sweepDue = flushing || now - this.sweptAt >= this.sweepIntervalMs;
    if (this.own.length > 0 && (flushing || !sweepDue)) return this.insertOwn();
    if (!sweepDue) return 0;
    this.sweptAt = now;
    const { events, more } = await this.sweep(now, flushing);
    if (more) this.sweptAt = -Infinity;
    return events > 0 || this.own.length === 0 ? events : this.insertOwn();
  }

  /** Insert the oldest batch of this replica's own entries, then XDEL them (after the insert committed). */
  private async insertOwn(): Promise<number> {
    const { batch, events } = firstBatch(this.own, this.options.batchSize);
    await this.writeEntries(batch);
    const ids = batch.map((e) => e.id);
    this.forgetOwn(new Set(ids));
    try {
      await this.client.xdel(this.current.key, ...ids);
    } catch (err) {
      // Written but still in the stream: a sweep inserts them again as no-ops and deletes them.
      this.deps.metrics.usageWriteFailures.inc({ stage: 'ack' });
      throw err;
    }
    return events;
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
   * One sweep: of this build's stream, and when that has nothing (a few times per idle time, and
   * on flush), of the earlier builds' stream if it holds anything. `more` when a read was full.
   */
  private async sweep(now: number, flushing: boolean): Promise<{ events: number; more: boolean }> {
    if (now - this.forgotAt >= FORGET_INTERVAL_MS) {
      this.forgotAt = now;
      await this.current.group.ensure();
      await this.forgetDeadConsumers();
    }
    const found = await this.sweepStream(this.current, now);
    if (found.events > 0 || found.more) return found;
    if (!flushing && now - this.legacyCheckedAt < this.claimIntervalMs) return found;
    this.legacyCheckedAt = now;
    if ((await this.client.xlen(this.legacy.key)) === 0) return found;
    return this.sweepStream(this.legacy, now);
  }

  /**
   * One read of a shared stream: this consumer's unacknowledged entries (only while there may be
   * some: every entry it reads stays pending until acknowledged), else dead consumers' idle ones
   * (a few times per idle time), else entries never delivered.
   */
  private async sweepStream(s: SweptStream, now: number): Promise<{ events: number; more: boolean }> {
    await s.group.ensure();
    if (s.mayHavePending) {
      const pending = await this.read(s, '0');
      if (pending.length > 0) return { events: await this.process(s, pending), more: true };
      s.mayHavePending = false;
    }
    if (now - s.claimedAt >= this.claimIntervalMs) {
      s.claimedAt = now;
      const claimed = await s.group.claim(this.options.claimIdleMs);
      if (claimed.length >= this.options.batchSize) s.claimedAt = -Infinity;
      if (claimed.length > 0) return { events: await this.process(s, claimed), more: true };
    }
    const fresh = await this.read(s, '>');
    return { events: await this.process(s, fresh), more: fresh.length >= this.options.batchSize };
  }

  /**
   * Insert the entries' events as one batch: their rows in one COPY, or (entries of the JSON
   * format before) their JSON spliced into one array; decoded only if Postgres refuses the batch
   * for its data (see `writeRows`, `writeJson`).
   */
  private async writeEntries(entries: readonly Entry[]): Promise<void> {
    const { rows, json, suspect } = byWritePath(entries);
    const decode = (of: Entry[]) => () => this.decodeOrSetAside(of);
    if (rows.length > 0) await this.writeRows(rows.map((e) => e.raw as string | Buffer), eventCount(rows), decode(rows));
    if (json.length > 0) await this.writeJson(batchJson(json), eventCount(json), decode(json));
    if (suspect.length > 0) await this.write(this.decodeOrSetAside(suspect));
  }

  /** The entries' events; what is not an event is logged and dead-lettered as it is. */
  private decodeOrSetAside(entries: readonly Entry[]): UsageEvent[] {
    const events: UsageEvent[] = [];
    for (const entry of entries) {
      const decoded = decodeEntry(entry);
      events.push(...decoded.events);
      for (const foreign of decoded.foreign) {
        this.deps.logger.error('usage outbox: undecodable stream entry moved to the dead-letter stream', { entry_id: entry.id });
        this.deps.metrics.usageWriteFailures.inc({ stage: 'rejected' });
        void this.deadLetter(foreign, 'not a usage event');
      }
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

  private async read(s: SweptStream, from: '0' | '>'): Promise<Entry[]> {
    try {
      return await s.group.read(from);
    } catch (err) {
      s.mayHavePending = true; // a reply lost after Redis delivered entries leaves them pending here
      throw err;
    }
  }

  /**
   * Keep the group's consumer list from growing with every restart (best effort): remove
   * consumers without pending entries idle longer than `idleMs` (default: an hour, or ten claim
   * idle times if longer).
   */
  forgetDeadConsumers(idleMs = Math.max(this.options.claimIdleMs * 10, 3_600_000)): Promise<number> {
    return this.current.group.forgetDead(idleMs);
  }

  /**
   * Insert the entries' events in batches of at most `batchSize` (an entry is never split), then
   * XACK + XDEL them all (after the inserts committed). An entry is the events' COPY rows, so a
   * batch is the entries concatenated, not decoded and encoded again. An
   * entry that is not events makes Postgres refuse the batch as data; then they are decoded and
   * written one by one, and what is not an event is logged and kept in the dead-letter stream
   * instead of blocking the rest.
   */
  private async process(s: SweptStream, entries: Entry[]): Promise<number> {
    if (entries.length === 0) return 0;
    let written = 0;
    try {
      for (let rest = entries.filter((e) => e.raw !== null); rest.length > 0; ) {
        const { batch, events } = firstBatch(rest, this.options.batchSize);
        await this.writeEntries(batch);
        written += events;
        rest = rest.slice(batch.length);
      }
    } catch (err) {
      s.mayHavePending = true; // still pending in this consumer's list: the next sweep reads them again
      throw err;
    }
    const ids = entries.map((e) => e.id);
    this.forgetOwn(new Set(ids)); // a sweep may have read entries this replica was about to insert
    try {
      await s.group.ackAndDelete(ids);
    } catch (err) {
      // Written but not acknowledged: they will be re-read and re-inserted as no-ops.
      s.mayHavePending = true;
      this.deps.metrics.usageWriteFailures.inc({ stage: 'ack' });
      throw err;
    }
    // Entries deleted meanwhile count too: a read that found only those still took care of something.
    return Math.max(written, entries.length);
  }
}
