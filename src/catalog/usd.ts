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

/** Significant digits an amount under a dollar is shown with: enough to tell $0.013608 from $0.010345. */
export const USD_SIGNIFICANT_DIGITS = 4;

/**
 * A USD amount for people to read, the one money format of the gateway's messages and the
 * dashboard: a dollar or more in cents (`$1,234.57`); under a dollar with
 * {@link USD_SIGNIFICANT_DIGITS} significant digits and at least cents (`$0.01361`, `$0.10`,
 * `$0.0000024`), so small spends that differ never read the same. Rounded as {@link roundUsd} first,
 * so float noise never shows; never in exponent notation.
 */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd)) return `$${usd}`;
  const exact = roundUsd(usd);
  const abs = Math.abs(exact);
  const sign = exact < 0 ? '-' : '';
  if (abs >= 1 || abs === 0)
    return `${sign}$${abs.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const decimals = Math.min(USD_DECIMALS, Math.max(2, USD_SIGNIFICANT_DIGITS - 1 - Math.floor(Math.log10(abs))));
  // Trailing zeros beyond the cents go: $0.2120 reads $0.212.
  const text = abs.toFixed(decimals).replace(/(\.\d\d\d*?)0+$/, '$1');
  return `${sign}$${text}`;
}

/** Decimal places that show `step` exactly (0.0025 → 4), at most {@link USD_DECIMALS}. */
function decimalsOf(step: number): number {
  for (let d = 0; d < USD_DECIMALS; d++) {
    const scaled = step * 10 ** d;
    const whole = Math.round(scaled);
    if (whole >= 1 && Math.abs(scaled - whole) < 1e-6 * scaled) return d;
  }
  return USD_DECIMALS;
}

/**
 * Labels of a money axis whose ticks are `step` apart (the dashboard's charts), in the format of
 * {@link formatUsd} with as many decimals as the step needs: ticks are multiples of the step, so no
 * two labels are the same (cents alone labelled a sub-cent axis "$0.01, $0.01, $0.01").
 */
export function usdTicks(ticks: readonly number[], step: number): string[] {
  const gap = Number.isFinite(step) && step > 0 ? step : Math.abs((ticks[1] ?? 0) - (ticks[0] ?? 0)) || 0.01;
  const decimals = Math.max(2, decimalsOf(gap));
  return ticks.map((tick) => {
    // Ticks carry float noise (a zero of -1e-18): snapped to the step's precision.
    const value = Math.abs(tick) < gap / 2 ? 0 : tick;
    const text = Math.abs(value).toLocaleString('en-US', {
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    });
    return `${value < 0 ? '-' : ''}$${text.replace(/(\.\d\d\d*?)0+$/, '$1')}`;
  });
}
