/**
 * The spend guard: reserves a request's estimated cost against every limit that applies (the
 * workspace's budgets and the key's own limit) before the upstream call, and settles it to the
 * real cost afterwards. The embeddings path depends only on this interface.
 * @module
 */
import type { ApiKeyRecord } from '../keys/types';

/** A held reservation; exactly one of `settle` / `release` should be called. */
export interface Reservation {
  /** Replace the estimate with the real cost. */
  settle(actualUsd: number): Promise<void>;
  /** Give the reservation back (the call failed and costs nothing). */
  release(): Promise<void>;
  /** No limit applies to the request: nothing is held, so its answer needs no metering (see slices.ts). */
  readonly unlimited?: boolean;
}

/** Reserve spend for one request; throws PaymentRequiredError (402) when it does not fit. */
export interface SpendGuard {
  reserve(key: ApiKeyRecord, estimatedUsd: number, requestId: string): Promise<Reservation>;
  /** The reservation if it can be made without waiting (no limit, or a live lease), else undefined: call `reserve`. */
  reserveNow?(key: ApiKeyRecord, estimatedUsd: number): Reservation | undefined;
  /** Settle whatever the guard still holds for finished requests (shutdown, after the last request). */
  close?(): Promise<void>;
}

/** A guard that never refuses (no budgets configured in this build). */
export const UNLIMITED: SpendGuard = {
  reserve() {
    return Promise.resolve({ settle: () => Promise.resolve(), release: () => Promise.resolve(), unlimited: true });
  },
};
