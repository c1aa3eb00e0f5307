/**
 * Upstream bodies are read as the chunks they arrived in (`ByteChunks`), never joined. Whatever
 * the split, reading and lifting vectors must give what one contiguous buffer gives: searches
 * that straddle chunks, UTF-8 characters split between chunks, and vectors split anywhere,
 * including inside a number, are checked against the unsplit body at every split and at
 * random many-way splits.
 */
import fc from 'fast-check';
import { ByteChunks } from '../../src/providers/byte-chunks';
import { parseLiftingArrays } from '../../src/providers/raw-json';

/** `bytes` cut at the given positions (duplicates and zero-length pieces allowed). */
function split(bytes: Buffer, cuts: number[]): ByteChunks {
  const points = [...cuts.map((c) => Math.min(c, bytes.length))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  chunks.push(bytes.subarray(from));
  return new ByteChunks(chunks);
}

/** What a lift gives, in plain values: the skeleton and each vector's bytes as text. */
function lifted(body: ByteChunks | Buffer) {
  const r = parseLiftingArrays(body, 'embedding');
  return r && { body: r.body, raws: r.raws.map((v) => v.bytes.toString('latin1')) };
}

const BODY = Buffer.from(
  '{"object":"list","note":"é \\"embedding\\": [9] ✓","data":[{"object":"embedding","index":0,"embedding":[0.0123,-4.5e-3,7]},' +
    '{"object":"embedding","index":1,"embedding" : [ 1 , 2.25 ]},{"index":2,"embedding":"QUJD"}],"model":"m","usage":{"prompt_tokens":3,"total_tokens":3}}',
);

describe('ByteChunks', () => {
  test('reads bytes, finds needles and decodes text across every two-way split', () => {
    const needle = Buffer.from('"embedding"');
    for (let cut = 0; cut <= BODY.length; cut++) {
      const body = split(BODY, [cut]);
      expect(body.length).toBe(BODY.length);
      expect(body.text()).toBe(BODY.toString('utf8'));
      for (const at of [0, cut - 1, cut, BODY.length - 1, BODY.length]) expect(body.byteAt(at)).toBe(BODY[at]);
      for (const from of [0, cut - 5, cut, 60, 200]) {
        const start = Math.max(0, from);
        expect(body.indexOf(needle, start)).toBe(BODY.indexOf(needle, start));
        expect(body.indexOf(0x5d, start)).toBe(BODY.indexOf(0x5d, start));
      }
      expect(body.bytes(cut - 3 < 0 ? 0 : cut - 3, Math.min(BODY.length, cut + 3)).equals(BODY.subarray(Math.max(0, cut - 3), cut + 3))).toBe(true);
    }
  });

  test('a span inside one chunk is a view of it; one that straddles is a copy', () => {
    const body = split(BODY, [50]);
    expect(body.bytes(10, 20).buffer).toBe(BODY.buffer);
    const across = body.bytes(45, 55);
    expect(across.buffer).not.toBe(BODY.buffer);
    expect(across.equals(BODY.subarray(45, 55))).toBe(true);
  });

  test('a needle spread over several tiny chunks is found', () => {
    const body = split(BODY, Array.from({ length: BODY.length }, (_, i) => i));
    expect(body.chunks.length).toBe(BODY.length + 1);
    expect(body.indexOf(Buffer.from('"embedding" :'))).toBe(BODY.indexOf('"embedding" :'));
    expect(body.text()).toBe(BODY.toString('utf8'));
  });
});

describe('lifting vectors from a split body', () => {
  test('every two-way split lifts what the whole body lifts', () => {
    const whole = lifted(BODY);
    expect(whole?.raws).toEqual(['[0.0123,-4.5e-3,7]', '[ 1 , 2.25 ]']);
    for (let cut = 0; cut <= BODY.length; cut++) expect(lifted(split(BODY, [cut]))).toEqual(whole);
  });

  test('random many-way splits of valid and corrupted bodies agree with the whole body', () => {
    const vector = fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 12 });
    const item = fc.record({ index: fc.nat(50), embedding: vector, note: fc.string({ unit: 'grapheme', maxLength: 6 }) });
    const arbitrary = fc.record({
      items: fc.array(item, { maxLength: 5 }),
      corrupt: fc.option(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { nil: undefined }),
      cuts: fc.array(fc.nat(), { maxLength: 12 }),
    });
    fc.assert(
      fc.property(arbitrary, ({ items, corrupt, cuts }) => {
        const bytes = Buffer.from(JSON.stringify({ object: 'list', data: items, usage: { prompt_tokens: 1 } }));
        if (corrupt) bytes[corrupt[0] % bytes.length] = corrupt[1];
        expect(lifted(split(bytes, cuts.map((c) => c % (bytes.length + 1))))).toEqual(lifted(bytes));
      }),
      { numRuns: 2000, seed: 32 },
    );
  });
});
