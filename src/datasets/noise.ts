/**
 * Noise for the installation-wide rankings (differential privacy): the discrete Laplace
 * (two-sided geometric) distribution, which suits integer token counts and whose draws are
 * integers, so a published figure never hints at its noise through a fraction. No maintained npm
 * package offers it over a cryptographic source, hence these few lines.
 * @module
 */
import { randomBytes } from 'node:crypto';

/** A source of uniform draws in (0, 1]. */
export type Uniform = () => number;

/**
 * A uniform draw in (0, 1] from the operating system's CSPRNG (53 random bits): a predictable
 * generator would let a tenant who learns its state subtract the noise.
 */
export const secureUniform: Uniform = () => (Number(randomBytes(8).readBigUInt64BE() >> 11n) + 1) / 2 ** 53;

/** A geometric draw (failures before the first success) with success probability 1 − e^(−1/scale). */
function geometric(scale: number, uniform: Uniform): number {
  const u = Math.min(1, Math.max(uniform(), Number.MIN_VALUE));
  return Math.floor(-Math.log(u) * scale);
}

/**
 * An integer with P(k) ∝ e^(−|k| / scale): the difference of two geometric draws. Adding it to a
 * count whose sensitivity is `clamp` with `scale = clamp / ε` makes the count ε-differentially
 * private.
 * @param scale - clamp / ε; 0 means no noise
 */
export function discreteLaplace(scale: number, uniform: Uniform = secureUniform): number {
  if (!(scale > 0)) return 0;
  return geometric(scale, uniform) - geometric(scale, uniform);
}
