/**
 * The rankings dataset's parts, built once per process from the other dependencies: the
 * service the route calls, the rollup (CLI, scheduler, tests), the in-process schedule, the
 * input sampler, and the route's two rate-limit stores (per key per minute, per organization
 * per day).
 * @module
 */
import type { Config } from '../config';
import type { Database } from '../store/db';
import type { Kv } from '../kv/kv';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { Catalog } from '../catalog/catalog';
import { RankingsRollup } from './rollup';
import { publishOptions } from './publish';
import { RankingsService, catalogFaces } from './service';
import { RollupScheduler } from './scheduler';
import { RankingsSampler, type Classify } from './sampler';
import { ClassifierThread } from './classify/thread';

/** Everything the rankings dataset runs on. */
export interface Rankings {
  service: RankingsService;
  rollup: RankingsRollup;
  scheduler: RollupScheduler;
  sampler: RankingsSampler;
  /** The classifier's worker thread (started by the first sample). */
  classifier: ClassifierThread;
}

/** Inputs of {@link createRankings}. */
export interface RankingsDeps {
  config: Config;
  db: Database;
  kv: Kv;
  logger: Logger;
  metrics: Metrics;
  catalog: Catalog;
  clock: () => number;
  random: () => number;
  /** Replaces the built-in classifier (tests). */
  classify?: Classify;
  /** A module the classifier thread loads before its entry (tests: a TypeScript loader). */
  preload?: string;
}

/** Build the parts; nothing starts until `scheduler.start()`. */
export function createRankings(d: RankingsDeps): Rankings {
  const cfg = d.config.rankings;
  const rollup = new RankingsRollup(d.db, {
    lookbackDays: cfg.lookbackDays,
    clock: d.clock,
    publish: publishOptions(cfg),
  });
  // Either kind: the sampler sees chat prompts as it sees embeddings inputs.
  const modelId = (name: string): string => d.catalog.find(name)?.id ?? name;
  const classifier = new ClassifierThread(d.preload);
  return {
    classifier,
    service: new RankingsService(d.db, rollup, catalogFaces(d.catalog.models), cfg, d.clock),
    rollup,
    scheduler: new RollupScheduler(
      () => rollup.run(cfg.rollupIntervalMs / 2),
      cfg.rollupIntervalMs,
      d.metrics,
      d.logger,
    ),
    sampler: new RankingsSampler(
      d.db,
      d.classify ?? classifier.classify,
      {
        rate: cfg.sampleRate,
        maxPerSecond: cfg.sampleMaxPerSecond,
        queueMax: cfg.sampleQueueMax,
        random: d.random,
        clock: d.clock,
        modelId,
      },
      d.metrics,
      d.logger,
    ),
  };
}

/** How long shutdown waits for queued samples before ending the classifier thread (which fails the rest). */
const SAMPLE_DRAIN_MS = 2000;

/** Stop the schedule, store queued samples (briefly), end the classifier, release the limit stores (shutdown). */
export async function closeRankings(r: Rankings): Promise<void> {
  await r.scheduler.stop();
  let timer: NodeJS.Timeout | undefined;
  const drained = r.sampler.close();
  await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, SAMPLE_DRAIN_MS)))]);
  clearTimeout(timer);
  await r.classifier.close();
  await drained;
}
