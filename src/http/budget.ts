/**
 * The budget step of a priced route: reserves the request's estimated cost (`res.locals.spend`)
 * against every budget of the caller's workspace and the key's own limit, runs the handler, and
 * once the handler's work is over settles the hold to what it recorded as spent, or releases it
 * (a failed call costs nothing). A refusal is the guard's 402; a store it cannot reach is a 503
 * (budgets fail closed).
 *
 * Settling follows the handler, not the socket: a client that leaves while the upstream call is
 * in flight does not stop that call from being recorded, so its cost must still reach the
 * counters. A client that leaves while the reservation is being made gets no upstream call at all.
 * @module
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Reservation, SpendGuard } from '../budgets/types';
import { currentKey } from '../auth/authenticate';
import { PaymentRequiredError } from '../errors';
import type { Tracing } from '../observability/tracing';
import { tracedWork } from '../observability/spans';

/** The priced work the budget step wraps; it sets `res.locals.spend.actualUsd` once the cost is known. */
export type PricedHandler = (req: Request, res: Response) => Promise<void>;

/**
 * Build the budget step around `handler`. `deps.spend` is read per request (a guard swapped in
 * later is used); `track` receives each settle or release, so shutdown can wait for the spend of
 * answered requests to reach the counters.
 */
export function reserveBudget(deps: { readonly spend: SpendGuard; readonly tracing: Tracing | null }, track: (work: Promise<unknown>) => void, handler: PricedHandler): RequestHandler {
  return async function reserveBudget(req: Request, res: Response): Promise<void> {
    const wanted = res.locals.spend;
    if (!wanted) throw new Error('reserveBudget: no spend estimate set before the budget step');
    // Listen before the first await: a client that leaves during the reserve round trip fires
    // 'close' then, and never again.
    let gone = false;
    const leave = (): void => {
      gone = true;
    };
    res.once('close', leave);
    // A reservation made at once (a lease, or no limit) costs no await, as on the hot path it usually is.
    let reservation: Reservation;
    try {
      const reserving = reserve(deps, req, wanted.estimateUsd);
      reservation = reserving instanceof Promise ? await reserving : reserving;
    } catch (err) {
      // The hint is for a worst case that does not fit the room left; a limit used up has no room to fit.
      const hinted = wanted.refusalHint && err instanceof PaymentRequiredError && Number(err.metadata?.remaining_usd) > 0;
      throw hinted ? new PaymentRequiredError(`${err.message} ${wanted.refusalHint}`, err.metadata) : err;
    }
    res.off('close', leave);
    if (gone) {
      track(reservation.release());
      return;
    }
    try {
      await handler(req, res);
    } finally {
      const actual = res.locals.spend?.actualUsd;
      track(actual === undefined ? reservation.release() : reservation.settle(actual));
    }
  };
}

/**
 * The request's reservation: without waiting when the guard can make it at once (a lease, or no
 * limit), else through its round trip; in a `budget.reserve` span when the request is traced.
 */
function reserve(deps: { readonly spend: SpendGuard; readonly tracing: Tracing | null }, req: Request, usd: number): Reservation | Promise<Reservation> {
  const key = currentKey(req);
  const now = deps.spend.reserveNow?.(key, usd);
  const reserving = now ?? deps.spend.reserve(key, usd, req.ctx.requestId);
  const trace = req.ctx.trace;
  if (!deps.tracing || !trace) return reserving;
  const traced = tracedWork(deps.tracing, trace, 'budget.reserve', Promise.resolve(reserving));
  return now ?? traced;
}
