/**
 * Classifier management (org- and workspace-scoped CRUD) and tagging. Tagging runs after the
 * answer has been sent: {@link ClassifierService.observe} only queues, in a queue per organization
 * (each bounded; overflow is dropped and counted) served in turn, so one tenant's backlog neither
 * crowds out nor delays another's tags. A drain off the request path samples, tags the capped text
 * input and stores the tags keyed by the generation id, in small batches written at least every
 * `flushMs`. Failures are logged and counted, never thrown.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { Database } from '../store/db';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { errorFields } from '../observability/error-fields';
import { requireWorkspace } from '../workspaces/service';
import * as repo from './repository';
import { checkDimensions, inputText } from './rules';
import { MatchTimeoutError, ThreadMatcher } from './matcher';
import { CLASSIFIER_LIMITS, type ClassifierInput, type ClassifierRecord } from './types';
import { FairQueue } from './fair-queue';
import type { Wire } from '../wire';

/** Requests tagged before their tags are written, at most. */
const BATCH_MAX = 25;

/** A request whose answer was sent: what tagging needs. */
export interface ObservedRequest {
  generationId: string;
  orgId: string;
  workspaceId: string;
  /** The request's `input` as validated. */
  input: unknown;
  createdAt: Date;
}

/** Options of {@link ClassifierService}. */
export interface ClassifierServiceOptions {
  logger: Logger;
  metrics?: Metrics;
  random?: () => number;
  /** Requests waiting to be tagged at most, all organizations together (memory); more are dropped. */
  maxQueued?: number;
  /** Requests of one organization waiting to be tagged at most; more are dropped, so its backlog stays short. */
  maxQueuedPerOrg?: number;
  /** A batch that has taken this long (by `clock`) is written at once, so tags are not held back behind slow texts. */
  flushMs?: number;
  /** How long a workspace's active classifiers are cached for tagging. */
  cacheMs?: number;
  clock?: () => number;
  /** How long tagging one text may take on the matcher thread before it is terminated. */
  matchTimeoutMs?: number;
  /** A module the matcher thread requires first (tests: a TypeScript loader). */
  preload?: string;
}

interface Cached {
  at: number;
  list: ClassifierRecord[];
}

/** Workspace classifiers: CRUD and tagging. */
export class ClassifierService {
  private readonly queue: FairQueue<ObservedRequest>;
  private draining: Promise<void> | null = null;
  private readonly cache = new Map<string, Cached>();
  private readonly o: Required<Omit<ClassifierServiceOptions, 'metrics' | 'preload'>> &
    Pick<ClassifierServiceOptions, 'metrics'>;
  private readonly matcher: ThreadMatcher;

  constructor(
    private readonly db: Database,
    opts: ClassifierServiceOptions,
  ) {
    this.o = {
      random: Math.random,
      maxQueued: 1000,
      maxQueuedPerOrg: 100,
      flushMs: 1000,
      cacheMs: 5000,
      clock: Date.now,
      matchTimeoutMs: 250,
      ...opts,
    };
    this.queue = new FairQueue(this.o.maxQueuedPerOrg, this.o.maxQueued);
    this.matcher = new ThreadMatcher(this.o.matchTimeoutMs, opts.preload);
  }

  /** Stop the matcher thread (after {@link idle}). */
  async close(): Promise<void> {
    await this.idle();
    await this.matcher.close();
  }

  /** Create a classifier in a workspace (UUID or slug) of the organization. */
  async create(orgId: string, wsRef: string, input: Wire<'classifiers.create.body'>): Promise<ClassifierRecord> {
    const issues = await checkDimensions(input.dimensions);
    if (issues.length > 0) throw new ValidationError(issues);
    return this.db.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, orgId, wsRef, 'share');
      if ((await repo.countClassifiers(tx, ws.id)) >= CLASSIFIER_LIMITS.perWorkspace) {
        throw new ConflictError(`A workspace has at most ${CLASSIFIER_LIMITS.perWorkspace} classifiers`);
      }
      const created = await repo.insertClassifier(tx, {
        id: randomUUID(),
        orgId,
        workspaceId: ws.id,
        name: input.name,
        active: input.active ?? true,
        sampleRate: input.sample_rate ?? 1,
        dimensions: input.dimensions,
      });
      this.cache.delete(ws.id);
      return created;
    });
  }

  /** A workspace's classifiers. */
  async list(orgId: string, wsRef: string): Promise<ClassifierRecord[]> {
    const ws = await requireWorkspace(this.db, orgId, wsRef);
    return repo.listClassifiers(this.db, ws.id);
  }

  /** One classifier, or 404 (also when it belongs to another workspace or organization). */
  async get(orgId: string, wsRef: string, id: string): Promise<ClassifierRecord> {
    const ws = await requireWorkspace(this.db, orgId, wsRef);
    const found = await repo.findClassifier(this.db, orgId, id, ws.id);
    if (!found) throw new NotFoundError();
    return found;
  }

  /** Change name, active flag, sample rate or dimensions. */
  async update(orgId: string, wsRef: string, id: string, patch: ClassifierInput): Promise<ClassifierRecord> {
    if (patch.dimensions) {
      const issues = await checkDimensions(patch.dimensions);
      if (issues.length > 0) throw new ValidationError(issues);
    }
    const current = await this.get(orgId, wsRef, id);
    const next: ClassifierRecord = {
      ...current,
      name: patch.name ?? current.name,
      active: patch.active ?? current.active,
      sampleRate: patch.sample_rate ?? current.sampleRate,
      dimensions: patch.dimensions ?? current.dimensions,
    };
    const updated = await repo.updateClassifier(this.db, next);
    if (!updated) throw new NotFoundError();
    this.cache.delete(updated.workspaceId);
    return updated;
  }

  /** Delete a classifier and its tags. */
  async delete(orgId: string, wsRef: string, id: string): Promise<void> {
    const ws = await requireWorkspace(this.db, orgId, wsRef);
    if (!(await repo.deleteClassifier(this.db, orgId, ws.id, id))) throw new NotFoundError();
    this.cache.delete(ws.id);
  }

  /**
   * Tag `req` once `res` has finished (the answer is sent), unless the workspace is known, as of
   * the cache, to have no active classifier: most requests then cost one map lookup.
   */
  observeAfter(res: { once(event: 'finish', listener: () => void): unknown }, req: ObservedRequest): void {
    const known = this.cache.get(req.workspaceId);
    if (known && known.list.length === 0 && this.o.clock() - known.at < this.o.cacheMs) return;
    res.once('finish', () => this.observe(req));
  }

  /**
   * Queue a request whose answer was sent for tagging. Never throws and never waits: the drain
   * runs on a later turn of the event loop.
   */
  observe(req: ObservedRequest): void {
    const pushed = this.queue.push(req.orgId, req);
    if (pushed !== 'queued') {
      this.o.metrics?.classifierTagging.inc({ outcome: pushed === 'full' ? 'dropped' : 'org_queue_full' });
      return;
    }
    this.draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
  }

  /** Resolves when every queued request has been tagged (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.size > 0) await this.tagBatch();
    } catch (err) {
      this.o.metrics?.classifierTagging.inc({ outcome: 'failed' });
      this.o.logger.error('classifier tagging failed', { error: errorFields(err) });
    } finally {
      this.draining = null;
      if (this.queue.size > 0) this.draining = this.drain();
    }
  }

  /**
   * Tag queued requests, organizations in turn, and write their tags: after {@link BATCH_MAX}
   * requests, once the batch has taken `flushMs`, or when the queue is empty.
   */
  private async tagBatch(): Promise<void> {
    const started = this.o.clock();
    const tags: repo.TagRow[] = [];
    let count = 0;
    do {
      tags.push(...(await this.tag(this.queue.shift()!)));
      count++;
    } while (count < BATCH_MAX && this.queue.size > 0 && this.o.clock() - started < this.o.flushMs);
    await repo.insertTags(this.db, tags);
    if (tags.length > 0)
      this.o.metrics?.classifierTagging.inc({ outcome: 'tagged' }, new Set(tags.map((t) => t.generationId)).size);
  }

  private async tag(r: ObservedRequest): Promise<repo.TagRow[]> {
    const active = await this.activeFor(r.workspaceId);
    const out: repo.TagRow[] = [];
    let text: string | undefined;
    for (const record of active) {
      if (record.orgId !== r.orgId || !(this.o.random() < record.sampleRate)) continue;
      text ??= inputText(r.input);
      if (text === '') return out;
      let tags;
      try {
        tags = await this.matcher.match(`${record.id}@${record.updatedAt?.getTime() ?? 0}`, record.dimensions, text);
      } catch (err) {
        if (!(err instanceof MatchTimeoutError)) throw err;
        // A pattern too slow for this text: the text stays untagged by this classifier.
        this.o.metrics?.classifierTagging.inc({ outcome: 'timeout' });
        this.o.logger.warn('classifier matching timed out', {
          classifier_id: record.id,
          generation_id: r.generationId,
        });
        continue;
      }
      for (const t of tags) {
        out.push({
          generationId: r.generationId,
          classifierId: record.id,
          dimension: t.name,
          orgId: r.orgId,
          value: t.value,
          createdAt: r.createdAt,
        });
      }
    }
    return out;
  }

  private async activeFor(workspaceId: string): Promise<Cached['list']> {
    const now = this.o.clock();
    const hit = this.cache.get(workspaceId);
    if (hit && now - hit.at < this.o.cacheMs) return hit.list;
    const list = await repo.listClassifiers(this.db, workspaceId, true);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(workspaceId, { at: now, list });
    return list;
  }
}
