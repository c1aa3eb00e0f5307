/**
 * The one policy of every replica-local lease (budget leases, rate-limit hit leases): when one
 * may be granted, and how long a request that only other replicas' leases keep out waits for
 * them. Shared so the two kinds of lease cannot drift apart.
 * @module
 */

/** A lease is granted only while the limit has at least this many leases' worth of room left. */
export const HEADROOM_LEASES = 8;

/** Whether a lease of `amount` may be granted where `roomBefore` is left under the limit (before the lease). */
export function leaseFits(amount: number, roomBefore: number): boolean {
  return roomBefore >= amount * HEADROOM_LEASES;
}

/** Times a request kept out only by other replicas' live leases waits for them before it is refused. */
export const MAX_LEASE_WAITS = 3;

/** One such wait: leases close for new requests within `leaseMs`, then settle or release in a round trip. */
export function leaseCloseWaitMs(leaseMs: number): number {
  return leaseMs + 10;
}
