/**
 * Exact decimal-string arithmetic for prices: the catalog holds USD per 1M tokens as written by
 * providers ("0.02"), the API wants USD per token as a plain decimal string ("0.00000002"), never
 * floating-point noise or exponent notation.
 * @module
 */

/** A non-negative number or decimal string → a plain decimal string (no exponent). */
export function plainDecimal(value: string | number): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new Error(`invalid price ${value}`);
    // 15 significant digits drop binary noise (0.016 stays 0.016); exponent forms are expanded.
    const text = Number(value.toPrecision(15)).toString();
    const m = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
    if (!m) return trim(text);
    const [, int = '', frac = '', exp = '0'] = m;
    const places = frac.length - Number(exp);
    return places <= 0 ? trim(int + frac + '0'.repeat(-places)) : withScale(int + frac, places);
  }
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value)) throw new Error(`invalid price "${value}"`);
  return trim(value);
}

/**
 * Divide a decimal by 10^`places` exactly, e.g. `shiftDecimal("0.02", 6)` → `"0.00000002"`.
 */
export function shiftDecimal(value: string | number, places: number): string {
  const plain = plainDecimal(value);
  const [int = '0', frac = ''] = plain.split('.');
  return withScale(int + frac, frac.length + places);
}

/** The decimal `digits × 10^-scale` as a plain string. */
function withScale(digits: string, scale: number): string {
  const padded = digits.replace(/^0+(?=\d)/, '').padStart(scale + 1, '0');
  return trim(`${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`);
}

function trim(s: string): string {
  if (!s.includes('.')) return s.replace(/^0+(?=\d)/, '');
  const out = s
    .replace(/0+$/, '')
    .replace(/\.$/, '')
    .replace(/^0+(?=\d)/, '');
  return out === '' ? '0' : out;
}
