/**
 * The one precision of money leaving the gateway (API answers and the dashboard). Catalog prices
 * are exact decimals with at most {@link USD_DECIMALS} digits after the point per token, image or
 * request (the catalog loader refuses finer ones), so every cost (tokens × price, or a sum of
 * costs) is exact at that many decimals: rounding there removes binary floating-point noise
 * (`6.000000000000001e-8` → `6e-8`) and loses nothing. Budget counters count in the same unit.
 * @module
 */

/** Decimal places of a USD amount: nano-dollars. */
export const USD_DECIMALS = 9;

/**
 * A USD amount rounded to {@link USD_DECIMALS} places. Goes through the decimal text of the
 * double (`toFixed`), not `x * 1e9`, whose product can itself pick up noise.
 */
export function roundUsd(usd: number): number {
  return Number.isFinite(usd) ? Number(usd.toFixed(USD_DECIMALS)) : usd;
}
