/**
 * One contract suite run against every wire adapter and its fake upstream (Hono's
 * `common.case.test` pattern): request mapping, vectors in order, dimensions, token usage,
 * authentication header, garbage bodies, and the classification of every upstream fault.
 */
import { loadConfig } from '../../src/config';
import { loadCatalog } from '../../src/catalog/load';
import type { Endpoint } from '../../src/catalog/types';
import { UpstreamHttp } from '../../src/transport/upstream-http';
import { EMBEDDINGS_ADAPTERS, embeddingsAdapterFor } from '../../src/providers/embeddings-registry';
import { ADAPTER_NAMES } from '../../src/providers/adapter-names';
import type { EmbeddingJob, Vector } from '../../src/providers/embeddings-types';
import { numberArrayEnd, parseLiftingArrays, RawVector } from '../../src/providers/raw-json';
import { embeddingsResponseBody } from '../../src/embeddings/response';
import { fromBase64Float32, toBase64Float32 } from '../../src/embeddings/encode';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { fakeVector } from '../fakes/wires';

/** Adapter → a catalog model served by a provider with that wire format, and how it authenticates. */
const CASES = [
  {
    adapter: 'openai',
    model: 'openai/text-embedding-3-small',
    slug: 'openai',
    auth: ['authorization', 'Bearer test-key-openai'],
    reportsUsage: true,
  },
  {
    adapter: 'cohere',
    model: 'cohere/embed-v4.0',
    slug: 'cohere',
    auth: ['authorization', 'Bearer test-key-cohere'],
    reportsUsage: true,
  },
  {
    adapter: 'gemini',
    model: 'google/gemini-embedding-001',
    slug: 'google-ai-studio',
    auth: ['x-goog-api-key', 'test-key-google-ai-studio'],
    reportsUsage: false,
  },
  {
    adapter: 'voyage',
    model: 'voyage/voyage-3.5',
    slug: 'voyage',
    auth: ['authorization', 'Bearer test-key-voyage'],
    reportsUsage: true,
  },
  {
    adapter: 'azure',
    model: 'openai/text-embedding-3-large',
    slug: 'azure',
    auth: ['api-key', 'test-key-azure'],
    reportsUsage: true,
  },
] as const;

let fleet: FakeFleet;
let http: UpstreamHttp;
/** Each model's endpoint on each provider, keyed `<model> <slug>`. */
let endpoints: Map<string, Endpoint>;
beforeAll(async () => {
  fleet = await startFakeFleet();
  http = new UpstreamHttp({ connectionsPerOrigin: 4, keepAliveTimeoutMs: 1000 });
  const catalog = loadCatalog(loadConfig({}, fleet.overrides), ADAPTER_NAMES);
  endpoints = new Map(catalog.models.flatMap((m) => m.endpoints.map((e) => [`${m.id} ${e.provider.slug}`, e])));
});
afterAll(async () => {
  await http.close();
  await fleet.closeAll();
});
beforeEach(() => fleet.resetAll());

test('every adapter has a contract case', () => {
  expect([...EMBEDDINGS_ADAPTERS.keys()].sort()).toEqual(CASES.map((c) => c.adapter).sort());
});

describe.each(CASES)('$adapter adapter', (c) => {
  const job = (over: Partial<EmbeddingJob> = {}): EmbeddingJob => ({
    input: { kind: 'text', texts: ['a', 'bbbb', 'cc'] },
    dimensions: undefined,
    inputType: undefined,
    user: undefined,
    encoding: 'float',
    ...over,
  });
  const adapter = embeddingsAdapterFor(c.adapter);
  const endpoint = () => endpoints.get(`${c.model} ${c.slug}`)!;
  const call = (j = job(), timeoutMs = 2000) =>
    http.post(adapter.buildRequest(j, endpoint(), endpoint().provider.keys[0]?.secret ?? null), adapter, timeoutMs);
  /** What the service does with a result: an unparseable 2xx body is a server failure. */
  const attempt = async (j = job(), timeoutMs = 2000) => {
    const res = await call(j, timeoutMs);
    if (res.outcome !== 'ok') return res;
    const parsed = adapter.parseResponse(res.body, j);
    return parsed ? { outcome: 'ok', status: res.status, parsed } : { outcome: 'server', status: res.status };
  };
  const numbers = (vectors: Vector[]) => vectors.map((v) => (v instanceof RawVector ? v.values() : v));

  test('maps a text batch to vectors in input order, with the upstream usage when reported', async () => {
    const res = await call();
    expect(res.outcome).toBe('ok');
    if (res.outcome !== 'ok') return;
    const parsed = adapter.parseResponse(res.body, job())!;
    expect(numbers(parsed.vectors)).toEqual([fakeVector(1), fakeVector(4), fakeVector(2)]);
    expect(parsed.promptTokens).toBe(c.reportsUsage ? 7 : null);
    const sent = fleet.fakes[c.slug]!.calls[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.headers[c.auth[0]]).toBe(c.auth[1]);
    expect(sent.path).not.toContain('test-key');
  });

  test('honours dimensions', async () => {
    const res = await call(job({ dimensions: 3 }));
    if (res.outcome !== 'ok') throw new Error(res.outcome);
    expect(numbers(adapter.parseResponse(res.body, job())!.vectors)[0]).toHaveLength(3);
  });

  test('rejects bodies that are not embeddings responses', () => {
    const bodies = [
      null,
      {},
      { data: 'x' },
      { embeddings: {} },
      { data: [{ embedding: ['x'] }] },
      { data: [{ embedding: [] }] },
      { embeddings: [{ values: [] }] },
      [],
    ];
    for (const text of [
      ...bodies.map((b) => JSON.stringify(b)),
      '',
      '{"data":[{"embedding":[1,,2]}]}',
      '{"data":[{"embedding":[1, 2',
      '<html>',
    ]) {
      expect(adapter.parseResponse(Buffer.from(text), job())).toBeNull();
    }
  });

  test.each([
    [
      { status: 429, headers: { 'retry-after': '3' } },
      { outcome: 'rate_limited', status: 429, retryAfterSeconds: 3 },
    ],
    [{ status: 500 }, { outcome: 'server', status: 500 }],
    [{ status: 529 }, { outcome: 'overloaded', status: 529 }],
    [
      { status: 503, body: { error: { message: 'The model is overloaded.' } } },
      { outcome: 'overloaded', status: 503 },
    ],
    [{ status: 400 }, { outcome: 'client', status: 400 }],
    [{ status: 422 }, { outcome: 'client', status: 422 }],
    [{ status: 401 }, { outcome: 'server', status: 401 }],
    [{ malformed: true as const }, { outcome: 'server', status: 200 }],
    [{ rawBody: '' }, { outcome: 'server', status: 200 }],
    [{ reset: true as const }, { outcome: 'network', status: null }],
  ])('fault %j → %j', async (fault, expected) => {
    fleet.fakes[c.slug]!.queue(fault);
    expect(await attempt()).toMatchObject(expected);
  });

  test('a hang → timeout within the attempt budget', async () => {
    fleet.fakes[c.slug]!.queue({ hang: true });
    expect(await call(job(), 100)).toMatchObject({ outcome: 'timeout', status: null });
  });
});

describe('raw vector pass-through', () => {
  test('lifts number arrays (any spacing, exponents), keeps strings and escaped look-alikes in place', () => {
    const text =
      '{"note":"say \\"embedding\\": [9]","data":[ {"index":1,"embedding" :\n [1e-05, -2.5E+3,0]},{"index":0,"embedding":"QUJD"},{"index":2,"embedding":[ 3 ]}]}';
    const lifted = parseLiftingArrays(Buffer.from(text), 'embedding')!;
    expect(lifted.raws.map((r) => r.values())).toEqual([[1e-5, -2500, 0], [3]]);
    expect(lifted.body).toEqual({
      note: 'say "embedding": [9]',
      data: [
        { index: 1, embedding: 0 },
        { index: 0, embedding: 'QUJD' },
        { index: 2, embedding: 1 },
      ],
    });
  });

  test('rejects arrays that are not plain numbers, and invalid JSON', () => {
    const bad = [
      '{"embedding":[1,"a"]}',
      '{"embedding":[[1]]}',
      '{"embedding":[]}',
      '{"embedding":[NaN]}',
      '{"embedding":[1]',
      '{"embedding":[1] x}',
      // numbers JSON does not allow: a client's JSON.parse of our response would fail on them
      '{"embedding":[01]}',
      '{"embedding":[1.]}',
      '{"embedding":[.5]}',
      '{"embedding":[1e]}',
      '{"embedding":[+1]}',
      '{"embedding":[-]}',
      '{"embedding":[1,]}',
      '{"embedding":[1 2]}',
      '{"embedding":[- 1]}',
      '{"embedding":[--1]}',
      '{"embedding":[1.2.3]}',
      '{"embedding":[Infinity]}',
      '{"embedding":[1e+]}',
      '{"embedding":[1',
      '{"embedding":[',
      // numbers a double cannot hold: JSON.parse reads them as ±Infinity
      '{"embedding":[0.1,1e999]}',
      '{"embedding":[-1E+309,0]}',
      '{"embedding":[1.8e308]}',
      `{"embedding":[${'9'.repeat(309)}]}`,
      `{"embedding":[0.5,${'1'.repeat(400)}.5]}`,
      '{"embedding":[0.001e312]}',
    ];
    for (const text of bad) {
      expect(parseLiftingArrays(Buffer.from(text), 'embedding')).toBeUndefined();
    }
  });

  test('numberArrayEnd agrees with JSON.parse on 20,000 generated arrays, valid and corrupted', () => {
    // Long fraction runs exercise the eight- and four-bytes-at-a-time digit skips; corruptions include
    // non-ASCII bytes. Reference: the prefix up to the first ']' must parse as a non-empty
    // array of finite numbers (a number array has no inner ']').
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor((seed / 2147483648) * n); // the high bits: the low bits of this generator repeat with short periods
    };
    let accepted = 0;
    for (let n = 0; n < 20_000; n++) {
      const bytes = [0x5b];
      for (let k = 0, items = 1 + rand(4); k < items; k++) {
        const space = () => [0x20, 0x0a, 0x0d, 0x09][rand(4)]!;
        if (rand(8) === 0) bytes.push(space()); // allowed before a number
        if (rand(3) === 0) {
          bytes.push(0x2d);
          if (rand(16) === 0) bytes.push(space()); // not allowed after its sign
        }
        bytes.push([0x30, 0x31, 0x39][rand(3)]!);
        for (let j = 0, d = rand(4) === 0 ? rand(4) : 0; j < d; j++) bytes.push(0x30 + rand(10)); // integer digits (leading zeros refused)
        if (rand(5) !== 0) {
          bytes.push(0x2e);
          for (let j = 0, d = rand(22); j < d; j++) bytes.push(0x30 + rand(10));
        }
        if (rand(5) === 0) {
          bytes.push(rand(2) ? 0x65 : 0x45);
          if (rand(2)) bytes.push(rand(2) ? 0x2b : 0x2d);
          for (let j = 0, d = rand(3); j < d; j++) bytes.push(0x30 + rand(10));
        }
        if (rand(8) === 0) bytes.push(space());
        if (k < items - 1) bytes.push(0x2c);
      }
      bytes.push(0x5d);
      for (let j = 0, m = rand(3); j < m; j++) bytes[rand(bytes.length)] = rand(256);
      bytes[0] = 0x5b; // the caller has found the '[' (the function's precondition)
      if (rand(3) === 0) bytes.push(0x2c, 0x7d);
      const buf = Buffer.from(bytes);
      const close = buf.indexOf(0x5d);
      let expected = -1;
      let count = 0;
      if (close !== -1) {
        try {
          const v: unknown = JSON.parse(buf.toString('latin1', 0, close + 1));
          // float32 must hold every number (base64 answers and cache entries are float32)
          if (
            Array.isArray(v) &&
            v.length > 0 &&
            v.every((x) => typeof x === 'number' && Number.isFinite(Math.fround(x)))
          ) {
            expected = close + 1;
            count = v.length;
          }
        } catch {
          // not JSON: expected stays -1
        }
      }
      if (expected !== -1) accepted++;
      const counted = { count: 0 };
      expect([buf.toString('latin1'), numberArrayEnd(buf, 0, counted)]).toEqual([buf.toString('latin1'), expected]);
      if (expected !== -1) expect(counted.count).toBe(count);
    }
    expect(accepted).toBeGreaterThan(3000); // both outcomes are well represented
  });

  test('numbers float32 holds pass (up to its largest, and what rounds to it), so do huge negative exponents (they underflow to 0); larger ones do not', () => {
    const text = `{"embedding":[3.4028234663852886e38,-3.4028235e38,1e-999,0e999,${'9'.repeat(38)},0.0001e42]}`;
    const raw = parseLiftingArrays(Buffer.from(text), 'embedding')!.raws[0]!;
    expect(raw.values().every((v) => Number.isFinite(Math.fround(v)))).toBe(true);
    expect([raw.values().length, raw.length]).toEqual([6, 6]);
    for (const big of ['3.4028236e38', '-1e39', '1.7976931348623157e308', '9'.repeat(39), '0.0001e43', '1e39 ']) {
      expect([big, parseLiftingArrays(Buffer.from(`{"embedding":[0.5,${big}]}`), 'embedding')]).toEqual([
        big,
        undefined,
      ]);
    }
  });

  test('accepts every RFC 8259 number form, with any JSON whitespace', () => {
    const text = '{"embedding":[0,-0,0.5,-0.125,1e5,1E-5,2e+3,-1.5e-300,123456789,\t1 ,\r\n2]}';
    expect(parseLiftingArrays(Buffer.from(text), 'embedding')!.raws[0]!.values()).toEqual([
      0, -0, 0.5, -0.125, 1e5, 1e-5, 2e3, -1.5e-300, 123456789, 1, 2,
    ]);
  });

  test('base64 encodes each vector on its own: a long one, then shorter ones (its scratch space is reused)', () => {
    const long = Array.from({ length: 5000 }, (_, i) => Math.sin(i) / 7);
    const short = [0.5, -2, 1e-3];
    const encodedLong = toBase64Float32(long);
    const encodedShort = toBase64Float32(short);
    expect(fromBase64Float32(encodedShort)).toEqual(short.map(Math.fround));
    expect(fromBase64Float32(encodedLong)).toEqual(long.map(Math.fround));
    expect(fromBase64Float32(toBase64Float32([]))).toEqual([]);
  });

  describe('a body in several chunks', () => {
    /** What a lift shows: the parsed rest, and each vector's bytes and count. */
    const shown = (lifted: ReturnType<typeof parseLiftingArrays>) =>
      lifted && { body: lifted.body, raws: lifted.raws.map((r) => [r.bytes.toString('latin1'), r.length]) };
    /** Cut `bytes` at `cuts` (sorted offsets). */
    const cutAt = (bytes: Buffer, cuts: number[]) =>
      [0, ...cuts].map((at, k) => bytes.subarray(at, k < cuts.length ? cuts[k] : bytes.length));

    test('gives what the joined body gives, at any cut: keys, numbers and characters split, tiny chunks, refused vectors', () => {
      let seed = 11;
      const rand = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return Math.floor((seed / 2147483648) * n);
      };
      const vector = () =>
        `[${Array.from({ length: 1 + rand(40) }, () => (rand(2) ? '-' : '') + `0.${rand(1e9)}` + (rand(10) === 0 ? 'e-5' : '')).join(rand(6) === 0 ? ', ' : ',')}]`;
      const bodies = Array.from({ length: 300 }, (_, n) => {
        const items = Array.from({ length: 1 + rand(5) }, (_, i) => {
          const value = rand(8) === 0 ? '"QUJD"' : rand(25) === 0 ? '[0.5,"x"]' : rand(25) === 0 ? '[01]' : vector();
          return `{"object":"embedding","index":${i},"embedding"${rand(5) === 0 ? ' :\n ' : ':'}${value}}`;
        });
        return Buffer.from(
          `{"id":"é-${n}","note":"say \\"embedding\\": [9] ✓","data":[${items.join(',')}],"usage":{"prompt_tokens":${n}}}${rand(30) === 0 ? ' x' : ''}`,
        );
      });
      let lifted = 0;
      for (const bytes of bodies) {
        const joined = shown(parseLiftingArrays(bytes, 'embedding'));
        if (joined) lifted++;
        for (let t = 0; t < 8; t++) {
          const cuts = [...new Set(Array.from({ length: 1 + rand(6) }, () => 1 + rand(bytes.length - 1)))].sort(
            (a, b) => a - b,
          );
          const chunks = cutAt(bytes, cuts);
          expect([bytes.toString(), cuts, shown(parseLiftingArrays(chunks, 'embedding'))]).toEqual([
            bytes.toString(),
            cuts,
            joined,
          ]);
        }
      }
      expect(parseLiftingArrays([], 'embedding')).toBeUndefined(); // an empty body
      expect(lifted).toBeGreaterThan(150); // both outcomes are well represented
      expect(lifted).toBeLessThan(300);
    });

    test('a long vector across chunks (over the reused scratch space, and over its largest size) is checked whole', () => {
      for (const n of [10_000, 120_000]) {
        const v = Array.from({ length: n }, (_, i) => (i % 2 ? -i : i) / 9);
        const text = JSON.stringify({ data: [{ index: 0, embedding: v }] });
        const bytes = Buffer.from(text);
        const cuts = [1, 2, 3, 4].map((q) => Math.floor((bytes.length * q) / 5));
        const lifted = parseLiftingArrays(cutAt(bytes, cuts), 'embedding')!;
        expect([n, lifted.raws[0]!.length, lifted.raws[0]!.parts.length]).toEqual([n, n, 5]);
        expect(lifted.raws[0]!.values()).toEqual(v);
        const mid = Math.floor(bytes.length / 2);
        const broken = Buffer.concat([bytes.subarray(0, mid), Buffer.from('x'), bytes.subarray(mid)]);
        expect(parseLiftingArrays(cutAt(broken, cuts), 'embedding')).toBeUndefined();
      }
    });

    test('is read where it lies: every vector is a view of the chunks, one across chunks in pieces', () => {
      // Vectors over 4 kB, so no buffer here comes from Node's shared pool of small ones.
      const first = Array.from({ length: 600 }, (_, i) => i / 7);
      const second = Array.from({ length: 600 }, (_, i) => -(i + 1) / 3);
      const text = JSON.stringify({
        data: [
          { index: 0, embedding: first },
          { index: 1, embedding: second },
        ],
        usage: { prompt_tokens: 3 },
      });
      const bytes = Buffer.from(text);
      const chunks = cutAt(bytes, [text.lastIndexOf('"embedding"') + 100]); // inside the second vector
      const lifted = parseLiftingArrays(chunks, 'embedding')!;
      expect(lifted.raws.map((r) => r.values())).toEqual([first, second]);
      // Both are views of the chunks' memory (no copy), the second in two pieces.
      expect(lifted.raws.map((r) => r.parts.map((p) => p.buffer === bytes.buffer))).toEqual([[true], [true, true]]);
      expect(Buffer.concat(lifted.raws[1]!.parts).toString()).toBe(JSON.stringify(second));
      // The answer splices the pieces in order.
      const answer = embeddingsResponseBody({
        id: 'g',
        model: 'm',
        providerName: 'P',
        vectors: lifted.raws,
        encoding: 'float',
        promptTokens: 3,
        cost: 0,
      });
      expect(answer.chunks).toEqual(expect.arrayContaining([...lifted.raws[1]!.parts]));
      const json = Buffer.concat(answer.chunks);
      expect(answer.length).toBe(json.length);
      expect(JSON.parse(json.toString()).data.map((d: { embedding: number[] }) => d.embedding)).toEqual([
        first,
        second,
      ]);
      expect(lifted.body).toEqual({
        data: [
          { index: 0, embedding: 0 },
          { index: 1, embedding: 1 },
        ],
        usage: { prompt_tokens: 3 },
      });
    });
  });

  test('the response splices raw vectors unchanged and stays valid JSON; base64 decodes the same numbers', () => {
    const raw = new RawVector(Buffer.from('[1e-05,\n -0.25, 3]'), 3);
    const body = embeddingsResponseBody({
      id: 'gen-emb-1-x',
      model: 'm/"q"',
      providerName: 'P',
      vectors: [raw, [0.5]],
      encoding: 'float',
      promptTokens: 2,
      cost: 1e-7,
    });
    // The upstream's bytes are passed on as they are (the same memory, not a copy), and the
    // declared length is the chunks' total.
    expect(body.chunks).toContain(raw.bytes);
    const json = Buffer.concat(body.chunks);
    expect(body.length).toBe(json.length);
    expect(json.toString()).toContain('[1e-05,\n -0.25, 3]');
    expect(JSON.parse(json.toString())).toEqual({
      id: 'gen-emb-1-x',
      object: 'list',
      model: 'm/"q"',
      provider: 'P',
      data: [
        { object: 'embedding', index: 0, embedding: [1e-5, -0.25, 3] },
        { object: 'embedding', index: 1, embedding: [0.5] },
      ],
      usage: { prompt_tokens: 2, total_tokens: 2, cost: 1e-7, is_byok: false },
    });
    const b64Body = embeddingsResponseBody({
      id: 'i',
      model: 'm',
      providerName: 'P',
      vectors: [raw],
      encoding: 'base64',
      promptTokens: 1,
      cost: 0,
    });
    const b64 = JSON.parse(Buffer.concat(b64Body.chunks).toString());
    expect(fromBase64Float32(b64.data[0].embedding)).toEqual([Math.fround(1e-5), -0.25, 3]);
  });
});
