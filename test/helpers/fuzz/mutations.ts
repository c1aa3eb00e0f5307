/**
 * Hostile variations of request parts for the route fuzzer: a valid value with one place
 * replaced by a hostile one (wrong type, huge number, odd Unicode, huge array, deep nesting,
 * prototype keys), hostile keys added, or a hostile whole body; and the same for query strings.
 * Bodies are JSON *text*, so values JSON.stringify cannot produce (`1e400`, `"\ud800"`) are sent.
 */
import fc from 'fast-check';

/** A piece of JSON text emitted verbatim. */
export class Raw {
  constructor(readonly text: string) {}
}

/** JSON text of `v`, with {@link Raw} nodes verbatim. */
export function toJsonText(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const repeat = (item: string, n: number) => Array(n).fill(item).join(',');

/** Values no field should accept, or that stress what reads them, by kind (a kind is drawn first, then a value). */
export const HOSTILE_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  wrongType: [0, -1, true, null, 'string', [], {}, [[[]]], { $gt: '' }],
  number: [
    new Raw('1e400'),
    new Raw('-1e400'),
    1e308,
    -1.7976931348623157e308,
    new Raw('123456789012345678901234567890'),
    2 ** 53 + 2,
    5e-324,
    new Raw('-0'),
    0.1,
  ],
  unicode: [
    new Raw('"\\ud800"'),
    new Raw('"a\\udfffb"'),
    '\u0000',
    'nul\u0000inside',
    '\u202eevil',
    '\ufeffbom',
    'e\u0301',
    '😀'.repeat(500),
    'x'.repeat(100_000),
    '',
  ],
  hugeArray: [
    new Raw(`[${repeat('0', 130_000)}]`),
    new Raw(`[${repeat('{}', 40_000)}]`),
    new Raw(`[${repeat('"x"', 60_000)}]`),
    new Raw(`[${repeat('"\\u0000"', 30_000)}]`),
    new Raw(`[${repeat('[0]', 30_000)}]`),
  ],
  deep: [
    new Raw(`${'['.repeat(5000)}${']'.repeat(5000)}`),
    new Raw(`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`),
    new Raw(`${'[{"a":'.repeat(40)}1${'}]'.repeat(40)}`),
  ],
  prototype: [
    new Raw('{"__proto__":{"admin":true,"isManagement":true},"constructor":{"prototype":{"polluted":1}}}'),
    new Raw('{"constructor":{"name":"x"},"toString":1,"valueOf":null}'),
  ],
};

/** Keys to add to an object (JSON text of the key). */
export const HOSTILE_KEYS: readonly string[] = [
  '"__proto__"',
  '"constructor"',
  '"prototype"',
  '"hasOwnProperty"',
  '"toString"',
  '"\\u0000"',
  '"\\ud800"',
  `"${'k'.repeat(50_000)}"`,
  '""',
];

/** Whole bodies of the wrong shape. */
export const HOSTILE_BODIES: readonly string[] = [
  'null',
  '0',
  '-1e400',
  '"string"',
  'true',
  '[]',
  '[{}]',
  '{',
  '{"a":1,}',
  '\u0000',
  '{"a":"\\x"}',
  '{"a":1}{"b":2}',
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  `[${repeat('{}', 40_000)}]`,
  `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
  '{"__proto__":null}',
  '\ufeff{}',
];

type Path = Array<string | number>;

function pathsOf(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (at.length > 0) out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (v !== null && typeof v === 'object' && !(v instanceof Raw))
    for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}

function replaced(v: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? replaced(x, rest, value) : x));
  const copy = { ...(v as Record<string, unknown>) };
  copy[head] = replaced(copy[head], rest, value);
  return copy;
}

function withKey(text: string, key: string, value: unknown): string {
  if (!text.startsWith('{')) return text;
  return text === '{}' ? `{${key}:${toJsonText(value)}}` : `{${key}:${toJsonText(value)},${text.slice(1)}`;
}

/** A hostile value: its kind drawn first, so rare kinds are not drowned by common ones. */
const hostileValue = fc
  .constantFrom(...Object.keys(HOSTILE_VALUES))
  .chain((kind) => fc.constantFrom(...(HOSTILE_VALUES[kind] as unknown[])));

/**
 * Every array in `v` made `n` items long, of `filler` (JSON text), or of its own first item when
 * `filler` is null: a huge list of plausible or of wrong items, which validation must refuse cheaply.
 */
function amplified(v: unknown, n: number, filler: string | null): unknown {
  if (Array.isArray(v)) return new Raw(`[${repeat(filler ?? toJsonText(v[0] ?? 0), n)}]`);
  if (v !== null && typeof v === 'object' && !(v instanceof Raw)) {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, amplified(x, n, filler)]),
    );
  }
  return v;
}

/** JSON body texts: valid ones (`valid`), and hostile variations of them. */
export function bodyTexts(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: valid.map(toJsonText) },
    {
      // one place anywhere in the value replaced
      weight: 3,
      arbitrary: fc.tuple(valid, fc.nat(), hostileValue).map(([v, n, h]) => {
        const paths = pathsOf(v);
        return toJsonText(paths.length === 0 ? h : replaced(v, paths[n % paths.length] as Path, h));
      }),
    },
    {
      // one top-level field replaced (where most of a schema's rules are)
      weight: 3,
      arbitrary: fc.tuple(valid, fc.nat(), hostileValue).map(([v, n, h]) => {
        const keys = v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : [];
        return toJsonText(keys.length === 0 ? h : replaced(v, [keys[n % keys.length] as string], h));
      }),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(20_000, 60_000, 130_000),
          fc.constantFrom(null, '0', '{}', 'true', '"\\u0000"', '[]'),
        )
        .map(([v, n, filler]) => toJsonText(amplified(v, n, filler))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...HOSTILE_KEYS), hostileValue)
        .map(([v, k, h]) => withKey(toJsonText(v), k, h)),
    },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_BODIES) },
  );
}

/** Raw (already encoded) query values that no parameter should accept, or that stress its parser. */
const HOSTILE_QUERY_VALUES = [
  'abc',
  '-1',
  '1.5',
  '1e400',
  'Infinity',
  'NaN',
  '99999999999999999999999',
  '%00',
  '%ED%A0%80',
  '%E0%A4%A',
  'x'.repeat(5000),
  '[]',
  '{}',
  '%F0%9F%98%80',
  'true',
  '',
];

/** A query string (without `?`) from a valid query object, possibly mutated. */
export function queryTexts(valid: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const encode = (q: Record<string, unknown>) =>
    Object.entries(q)
      .flatMap(([k, v]) =>
        (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(String(x))}`),
      )
      .join('&');
  const base = valid.map((v) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {}));
  return fc.oneof(
    { weight: 3, arbitrary: base.map(encode) },
    {
      weight: 3,
      arbitrary: fc.tuple(base, fc.nat(), fc.constantFrom(...HOSTILE_QUERY_VALUES)).map(([q, n, bad]) => {
        const keys = Object.keys(q);
        const name = keys.length > 0 ? (keys[n % keys.length] as string) : 'limit';
        return [
          encode({ ...q, [name]: 'X' }).replace(
            `${encodeURIComponent(name)}=X`,
            `${encodeURIComponent(name)}=${bad}`,
          ) || `${name}=${bad}`,
        ].join('');
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          base,
          fc.constantFrom(
            '__proto__=1',
            'constructor[prototype]=x',
            'a[b][c]=1',
            '%00=1',
            'limit=1&limit=2',
            '&&&',
            '=',
          ),
        )
        .map(([q, extra]) => `${encode(q)}&${extra}`),
    },
  );
}

/** Path segment values naming nothing, or hostile (already URL-encoded). */
export const HOSTILE_SEGMENTS: readonly string[] = [
  'x'.repeat(3000),
  '%00',
  'a%00b',
  '..%2F..%2Fetc',
  '%2e%2e',
  '%E0%A4%A',
  '%ED%A0%80',
  '%F0%9F%98%80'.repeat(30),
  '-1',
  '1e400',
  'null',
  '%20',
  '%25',
  "'%20OR%201=1--",
  '__proto__',
  'constructor',
];
