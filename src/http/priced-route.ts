/**
 * A priced route as one factory: plan → reserve → run → settle. The plan is a value handed from
 * step to step (the compiler sees the order); the reservation is the plan's worst case against
 * every budget of the caller's workspace and the key's own limit; the run answers the client and
 * says what the request cost; the hold is then settled to that, or released when the run failed
 * or charged nothing. A refusal is the guard's 402 (with what the client can change); a store the
 * guard cannot reach is a 503 (budgets fail closed).
 *
 * Settling follows the run, not the socket: a client that leaves while the upstream call is in
 * flight does not stop that call from being recorded, so its cost must still reach the counters.
 * A client that leaves while the reservation is being made gets no upstream call at all.
 *
 * A sliced plan (budgets/slices.ts) reserves its prompt and a first slice of completion; when a
 * limit applies, the run is handed the {@link SliceBudget} to ask for more as its answer grows, and
 * the settle covers every slice it was granted. A whole answer tries its whole worst case first
 * (`unsliced`), as metering it costs a streamed upstream call.
 * @module
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Reservation, SpendGuard } from '../budgets/types';
import { SlicedReservation, type SliceBudget } from '../budgets/slices';
import { currentKey } from '../auth/authenticate';
import { PaymentRequiredError } from '../errors';
import type { Tracing } from '../observability/tracing';
import { tracedWork } from '../observability/spans';

/** What every plan says: the most the request can cost (USD), which is reserved. */
export interface PricedPlan {
  estimateUsd: number;
  /** The estimate holds only a first slice of the completion: the run asks for the rest as it goes. */
  sliced?: boolean;
}

/** One priced operation, as a route wires it. */
export interface PricedOperation<P extends PricedPlan> {
  /** The plan of a validated request (model, candidates, worst case); throws a GatewayError. */
  plan(req: Request): P | Promise<P>;
  /**
   * Answer the planned request on `res`; resolves with what it cost once its work is over. A
   * sliced plan under a limit gets `budget`, to hold more of the answer as it grows.
   */
  run(req: Request, res: Response, plan: P, budget?: SliceBudget): Promise<number>;
  /** Receives each settle or release, so shutdown can wait for the spend of answered requests. */
  track(work: Promise<unknown>): void;
  /** Added to a 402's message: what the client can change so that the request fits. */
  refusalHint?: string;
  /**
   * A tighter plan, when its worst case was a bound (the prompt's size, not its count): asked
   * only after the bound's reservation is refused, so the exact work is done only when it can
   * change the outcome. Null when it is not tighter.
   */
  refine?(plan: P): P | null;
  /**
   * The plan holding its whole worst case, for a sliced plan whose answer is whole (null
   * otherwise): reserved first, and the sliced plan only when it is refused (see `wholePlan`).
   */
  unsliced?(plan: P): P | null;
}

/** What the factory needs of the gateway. */
export interface PricedDeps {
  readonly spend: SpendGuard;
  readonly tracing: Tracing | null;
}

/** The route's handler for `op`. */
export function pricedRoute<P extends PricedPlan>(deps: PricedDeps, op: PricedOperation<P>): RequestHandler {
  return async function pricedRequest(req: Request, res: Response): Promise<void> {
    const plan = await op.plan(req);
    // Listen before the first await: a client that leaves during the reserve round trip fires
    // 'close' then, and never again.
    let gone = false;
    const leave = (): void => {
      gone = true;
    };
    res.once('close', leave);
    let held: Held<P>;
    try {
      const whole = op.unsliced?.(plan) ?? null;
      const trying = whole ? reserve(deps, req, whole.estimateUsd) : null;
      // As below, a whole reservation made at once costs no await.
      const first = trying instanceof Promise ? await unlessRefused(trying) : trying;
      // A reservation made at once (a lease, or no limit) costs no await, as on the hot path it usually is.
      const reserving = first ?? reserve(deps, req, plan.estimateUsd);
      held = first
        ? { reservation: first, plan: whole! }
        : reserving instanceof Promise
          ? await refining(deps, req, op, plan, reserving)
          : { reservation: reserving, plan };
    } catch (err) {
      // The hint is for a worst case that does not fit the room left; a limit used up has no room to fit.
      const hinted = op.refusalHint && err instanceof PaymentRequiredError && Number(err.metadata?.remaining_usd) > 0;
      throw hinted ? new PaymentRequiredError(`${err.message} ${op.refusalHint}`, err.metadata) : err;
    } finally {
      res.off('close', leave);
    }
    const { reservation, budget } = sliced(deps, req, held);
    if (gone) {
      op.track(reservation.release());
      return;
    }
    let actual: number | undefined;
    try {
      actual = await op.run(req, res, held.plan, budget);
    } finally {
      op.track(actual === undefined ? reservation.release() : reservation.settle(actual));
    }
  };
}

/** The reservation, or null when the guard refused it (a 402); any other failure is thrown. */
async function unlessRefused(reserving: Promise<Reservation>): Promise<Reservation | null> {
  try {
    return await reserving;
  } catch (err) {
    if (err instanceof PaymentRequiredError) return null;
    throw err;
  }
}

/** A reservation and the plan whose worst case it holds. */
interface Held<P> {
  reservation: Reservation;
  plan: P;
}

/** `reserving`; when it is refused and the operation has a tighter plan, that plan's reservation instead. */
async function refining<P extends PricedPlan>(
  deps: PricedDeps,
  req: Request,
  op: PricedOperation<P>,
  plan: P,
  reserving: Promise<Reservation>,
): Promise<Held<P>> {
  try {
    return { reservation: await reserving, plan };
  } catch (err) {
    const tighter = err instanceof PaymentRequiredError ? op.refine?.(plan) : null;
    if (!tighter) throw err;
    const again = reserve(deps, req, tighter.estimateUsd);
    return { reservation: again instanceof Promise ? await again : again, plan: tighter };
  }
}

/** The held reservation, as slices when its plan is sliced and a limit applies (else as it is, with no budget to extend). */
function sliced<P extends PricedPlan>(
  deps: PricedDeps,
  req: Request,
  held: Held<P>,
): { reservation: Reservation; budget?: SliceBudget } {
  if (!held.plan.sliced || held.reservation.unlimited) return { reservation: held.reservation };
  const slices = new SlicedReservation(held.reservation, held.plan.estimateUsd, (usd) =>
    Promise.resolve(reserve(deps, req, usd)),
  );
  return { reservation: slices, budget: slices };
}

/**
 * The request's reservation: without waiting when the guard can make it at once (a lease, or no
 * limit), else through its round trip; in a `budget.reserve` span when the request is traced.
 */
function reserve(deps: PricedDeps, req: Request, usd: number): Reservation | Promise<Reservation> {
  const key = currentKey(req);
  const now = deps.spend.reserveNow?.(key, usd);
  const reserving = now ?? deps.spend.reserve(key, usd, req.ctx.requestId);
  const trace = req.ctx.trace;
  if (!deps.tracing || !trace) return reserving;
  const traced = tracedWork(deps.tracing, trace, 'budget.reserve', Promise.resolve(reserving));
  return now ?? traced;
}
