/**
 * Who looks at an answered request once its answer is sent, never delaying it: the rankings
 * sampler (a sample of inputs, classified for the datasets) and the workspace classifiers.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { RankingsSampler, SampledRequest } from '../datasets/sampler';
import type { ClassifierService } from '../classifiers/service';
import type { CallerContext } from './caller';

/** The observers every inference operation hands its answered requests to. */
export interface AnswerObservers {
  /** The rankings' parts; its sampler is read per answer (the rankings own it). */
  rankings: { readonly sampler: Pick<RankingsSampler, 'offer'> };
  classifiers: Pick<ClassifierService, 'observeAfter'>;
}

/** What one answered request shows them. */
export interface Observed {
  generationId: string;
  /** The catalog model the request named. */
  model: string;
  /** The user's texts (the sampler and the classifiers read only these). */
  input: SampledRequest['input'];
  tokens: number;
  createdAt: Date;
}

/** Offer `o` to the sampler and the caller's workspace classifiers; both act on the answer's `finish`. */
export function observeAnswer(observers: AnswerObservers, res: ServerResponse, ctx: CallerContext, o: Observed): void {
  const { orgId, workspaceId } = ctx.key;
  observers.rankings.sampler.offer(res, { orgId, model: o.model, input: o.input, tokens: o.tokens });
  observers.classifiers.observeAfter(res, {
    generationId: o.generationId,
    orgId,
    workspaceId,
    input: o.input,
    createdAt: o.createdAt,
  });
}
