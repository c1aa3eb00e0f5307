/**
 * Sampling for the `category` and `language_type` datasets: a share of embeddings requests has
 * its text input classified after the answer was sent. The request path only draws a random
 * number; a sampled request registers for its response's `finish`, and only then is its input
 * queued (bounded: when full, samples are dropped and counted) and classified on a later turn
 * of the event loop, one at a time, then stored with weight 1 / rate. Under heavy traffic the
 * rate used is lowered so that about `maxPerSecond` requests a second are sampled (classifying
 * costs milliseconds of CPU each); each sample's weight is 1 / the rate it was drawn at, so the
 * estimate stays unbiased. Nothing here can delay or fail an answer: every failure is logged and
 * counted.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { Database } from '../store/db';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { errorFields } from '../observability/error-fields';
import { inputTexts, type RawInput } from '../embeddings/input';
import type { Category, LanguageType } from './types';

/** Characters of input classified (the whole request's tokens are stored). */
export const SAMPLE_CHARS = 8_000;

/** What the classifiers say about one input. */
export interface Classification {
  languageType: LanguageType;
  category: Category | null;
}

/** A classifier of input text (see `classify/`). */
export type Classify = (text: string) => Promise<Classification>;

/** What the sampler is offered of an answered request. */
export interface SampledRequest {
  orgId: string;
  model: string;
  input: RawInput;
  /** The request's prompt tokens as charged (the usage record's figure), not recounted here. */
  tokens: number;
}

interface Sample extends SampledRequest {
  at: number;
  weight: number;
}

/** Options of {@link RankingsSampler}. */
export interface SamplerOptions {
  rate: number;
  /** About how many requests a second may be sampled, whatever the traffic (the rate adapts). */
  maxPerSecond: number;
  queueMax: number;
  random: () => number;
  clock: () => number;
  /** The catalog's id for a request's model name (its case may differ). */
  modelId: (name: string) => string;
}

/** The text parts of an input, joined, at most {@link SAMPLE_CHARS}. */
export function inputText(input: RawInput): string {
  return inputTexts(input).join('\n').slice(0, SAMPLE_CHARS);
}

/** Samples, classifies and stores request inputs off the request path. */
export class RankingsSampler {
  private readonly queue: Sample[] = [];
  private draining: Promise<void> | null = null;
  private closed = false;
  /** Offers per second, smoothed over the last few seconds, and the current second's count. */
  private offersPerSecond = 0;
  private windowStart = 0;
  private windowOffers = 0;

  constructor(
    private readonly db: Database,
    private readonly classify: Classify,
    private readonly opts: SamplerOptions,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  /**
   * The one call on the request path, after the answer was handed to `res`: maybe sample it.
   * The input is read when the response has finished, never before.
   */
  offer(res: ServerResponse, request: SampledRequest): void {
    if (this.opts.rate <= 0 || this.closed) return;
    const at = this.opts.clock();
    const rate = this.rateAt(at);
    if (this.opts.random() >= rate) return;
    res.once('finish', () => this.enqueue({ ...request, at, weight: 1 / rate }));
  }

  /** The sampling rate now: the configured one, lowered while traffic would exceed `maxPerSecond` samples. */
  private rateAt(now: number): number {
    this.windowOffers++;
    const elapsed = now - this.windowStart;
    if (elapsed >= 1000) {
      const current = (this.windowOffers * 1000) / elapsed;
      this.offersPerSecond = this.windowStart === 0 ? current : (this.offersPerSecond + current) / 2;
      this.windowStart = now;
      this.windowOffers = 0;
    }
    return Math.min(this.opts.rate, this.opts.maxPerSecond / Math.max(1, this.offersPerSecond));
  }

  private enqueue(sample: Sample): void {
    if (this.closed || this.queue.length >= this.opts.queueMax) {
      this.metrics.rankingsSamples.inc({ outcome: 'dropped' });
      return;
    }
    this.queue.push(sample);
    this.draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
  }

  private async drain(): Promise<void> {
    for (let sample = this.queue.shift(); sample; sample = this.queue.shift()) {
      try {
        await this.store(sample);
      } catch (err) {
        this.metrics.rankingsSamples.inc({ outcome: 'failed' });
        this.logger.warn('rankings sample failed', { error: errorFields(err) });
      }
    }
    this.draining = null;
  }

  private async store(sample: Sample): Promise<void> {
    const text = inputText(sample.input);
    if (text.trim() === '') {
      this.metrics.rankingsSamples.inc({ outcome: 'skipped' });
      return;
    }
    const { languageType, category } = await this.classify(text);
    await this.db.query(
      `INSERT INTO rankings_samples (sampled_at, org_id, model, tokens, weight, language_type, category) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        new Date(sample.at).toISOString(),
        sample.orgId,
        this.opts.modelId(sample.model),
        Math.min(sample.tokens, 2_147_483_647),
        sample.weight,
        languageType,
        category,
      ],
    );
    this.metrics.rankingsSamples.inc({ outcome: 'stored' });
  }

  /** Wait for queued samples to be stored (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Take no more samples and store those queued. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
