/**
 * The one money format of the dashboard and the gateway's messages (issue 61 item 8): spends that
 * differ never read the same ($0.013608 and $0.010345 were both "$0.01"), and a money axis never
 * repeats a label. The dashboard's `usd()` is `formatUsd` with a dash for a missing amount, and its
 * money axes are `usdTicks` (dashboard/src/format.ts; the browser tests read both on the pages).
 */
import { formatUsd, usdTicks } from '../../src/catalog/usd';

test.each([
  [0.013608, '$0.01361'],
  [0.010345, '$0.01035'],
  [0.212, '$0.212'],
  [0.25, '$0.25'],
  [0.1, '$0.10'],
  [0.0000024, '$0.0000024'],
  [2.4e-7, '$0.00000024'],
  [1e-9, '$0.000000001'],
  [0.30000000000000004, '$0.30'],
  [6.000000000000001e-8, '$0.00000006'],
  [0.99999, '$1.00'],
  [0, '$0.00'],
  [1, '$1.00'],
  [1234.567, '$1,234.57'],
  [-0.5, '-$0.50'],
])('formatUsd(%p) is %s', (value, text) => {
  expect(formatUsd(value)).toBe(text);
});

test('no amount is shown in exponent notation', () => {
  for (let e = -9; e <= 6; e++) expect(formatUsd(3 * 10 ** e)).not.toMatch(/e/i);
});

test('amounts under a dollar that differ in their first four significant digits read differently', () => {
  const amounts = [0.013608, 0.010345, 0.0104, 0.01, 0.0099, 0.00099, 0.000999, 0.5, 0.5001];
  expect(new Set(amounts.map(formatUsd)).size).toBe(amounts.length);
});

test.each([
  ['sub-cent steps', [0, 0.005, 0.01, 0.015, 0.02], 0.005, ['$0.00', '$0.005', '$0.01', '$0.015', '$0.02']],
  ['quarter-cent steps', [0, 0.0025, 0.005, 0.0075], 0.0025, ['$0.00', '$0.0025', '$0.005', '$0.0075']],
  [
    'nano-dollar steps',
    [0, 5e-7, 1e-6, 1.5e-6, 2e-6, 2.5e-6],
    5e-7,
    ['$0.00', '$0.0000005', '$0.000001', '$0.0000015', '$0.000002', '$0.0000025'],
  ],
  ['steps of a tenth of a cent above a dollar', [1, 1.002, 1.004], 0.002, ['$1.00', '$1.002', '$1.004']],
  ['float noise in the ticks', [-1e-18, 0.1 + 0.2, 0.6000000000000001], 0.3, ['$0.00', '$0.30', '$0.60']],
  ['large steps', [0, 1000, 2000], 1000, ['$0.00', '$1,000.00', '$2,000.00']],
])('axis ticks, %s: distinct labels with a "$" each', (_label, ticks, step, labels) => {
  expect(usdTicks(ticks, step)).toEqual(labels);
  expect(new Set(labels).size).toBe(labels.length);
});
