/**
 * `npm run bench:tokens`: the gateway's own token counter (src/usage/tokens.ts, what is billed
 * when an upstream reports no usage, or usage out of bounds) on inputs a client or an upstream
 * could send: 8 M and 100 M characters, without any whitespace (`a…`, and base64-like text), of
 * whitespace alone, and mixed prose with code lines. Prints one line per input with the count,
 * the time and the time per MB (UTF-16 code units / 2^20), and the process's peak RSS. The time
 * bound is this script's to show, not a test's. Settings: TOKENS_SIZES (`8000000,100000000`).
 * Expects a build (the script makes one).
 */
'use strict';
const { countTokens } = require('../dist/src/usage/tokens');

const SIZES = (process.env.TOKENS_SIZES || '8000000,100000000').split(',').map(Number);
const MIXED = 'The quick brown fox, jumps over 12345 lazy dogs; “quoted” 日本語.\n    indented(code, { a: 1 });\n\n';
const BASE64 = 'QmFzZTY0IGlzIGEgYmluYXJ5LXRvLXRleHQgZW5jb2Rpbmcgc2NoZW1lIHRoYXQgcmVwcmVzZW50cw+/';

/** `unit` repeated to exactly `n` code units. */
function repeatTo(unit, n) {
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

const INPUTS = [
  ['no whitespace (a…)', (n) => 'a'.repeat(n)],
  ['no whitespace (base64)', (n) => repeatTo(BASE64, n)],
  ['whitespace only', (n) => ' '.repeat(n)],
  ['mixed prose and code', (n) => repeatTo(MIXED, n)],
];

countTokens(['warm the encoder up']);
for (const size of SIZES) {
  for (const [name, make] of INPUTS) {
    let text = make(size);
    const start = process.hrtime.bigint();
    const tokens = countTokens([text]);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const mb = text.length / 2 ** 20;
    text = null;
    const line = `${String(size).padStart(11)} chars  ${name.padEnd(24)} ${String(tokens).padStart(11)} tokens  ${ms.toFixed(0).padStart(7)} ms  ${(ms / mb).toFixed(2).padStart(7)} ms/MB`;
    console.log(line);
  }
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
