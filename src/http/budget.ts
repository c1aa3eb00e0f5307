/**
 * The budget step of a priced route: reserves the request's estimated cost (`res.locals.spend`)
 * against every budget of the caller's workspace and the key's own limit before the handler runs,
 * then, once the answer is finished, settles the hold to what the handler recorded as spent or
 * releases it (a failed call costs nothing). A refusal is the guard's 402; a store it cannot reach
 * is a 503 (budgets fail closed).
 * @module
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { SpendGuard } from '../budgets/types';
import { currentKey } from '../auth/authenticate';

/**
 * Build the budget step. `deps.spend` is read per request (a guard swapped in later is used);
 * `track` receives each settle or release, so shutdown can wait for the spend of answered
 * requests to reach the counters.
 */
export function reserveBudget(deps: { readonly spend: SpendGuard }, track: (work: Promise<unknown>) => void): RequestHandler {
  return async function reserveBudget(req: Request, res: Response, next: NextFunction): Promise<void> {
    const wanted = res.locals.spend;
    if (!wanted) throw new Error('reserveBudget: no spend estimate set before the budget step');
    const key = currentKey(req);
    const { spend } = deps;
    const reservation = spend.reserveNow?.(key, wanted.estimateUsd) ?? (await spend.reserve(key, wanted.estimateUsd, req.ctx.requestId));
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      const actual = res.locals.spend?.actualUsd;
      track(actual === undefined ? reservation.release() : reservation.settle(actual));
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}
