/**
 * The embeddings cache's pure parts: the entry format (round trip, damage detection), keys
 * (what separates entries), the stored form of each kind of vector, token shares, and the
 * in-process store's byte bound and eviction metrics.
 */
import fc from 'fast-check';
import { decodeEntry, encodeEntry, type CacheEntry } from '../../src/embeddings/cache/entry';
import { inputKeys, type KeyScope } from '../../src/embeddings/cache/keys';
import { apportion } from '../../src/embeddings/cache/plan';
import { answerFrom, float32Bytes, storedForm } from '../../src/embeddings/cache/vectors';
import { MemoryCacheStore } from '../../src/embeddings/cache/memory-store';
import { modeFor } from '../../src/embeddings/cache/settings';
import { RawVector } from '../../src/providers/raw-json';
import { Metrics } from '../../src/observability/metrics';

const entry = (over: Partial<CacheEntry> = {}): CacheEntry => ({
  endpointId: 'openai:openai/text-embedding-3-small',
  expiresAt: 1_800_000_000_000,
  tokens: 12,
  images: 0,
  length: 3,
  floats: float32Bytes([0.5, -0.25, 1e-7]),
  text: Buffer.from('[0.5,-0.25,1.0E-7]'),
  ...over,
});

describe('entry format', () => {
  test('round trip, with and without float text', () => {
    for (const e of [entry(), entry({ text: null, images: 3 }), entry({ floats: null })])
      expect(decodeEntry(encodeEntry(e))).toEqual(e);
  });

  test('any single damaged byte, truncation or foreign value is refused', () => {
    const good = encodeEntry(entry());
    fc.assert(
      fc.property(fc.integer({ min: 0, max: good.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const bad = Buffer.from(good);
        bad.writeUInt8(bad.readUInt8(at) ^ flip, at);
        return decodeEntry(bad) === null;
      }),
    );
    expect(decodeEntry(good.subarray(0, good.length - 1))).toBeNull();
    expect(decodeEntry(good.subarray(0, good.length - 1), false)).toBeNull();
    expect(decodeEntry(good, false)).toEqual(entry());
    expect(decodeEntry(encodeEntry(entry(), false), false)).toEqual(entry());
    expect(decodeEntry(encodeEntry(entry(), false))).toBeNull();
    expect(decodeEntry(Buffer.from('[1,2,3]'))).toBeNull();
    expect(decodeEntry(Buffer.alloc(0))).toBeNull();
  });

  test('entries of version 1 (written before every vector was validated) are not read', () => {
    const v1 = Buffer.from(encodeEntry(entry(), false));
    v1.write('SYE1', 0, 'latin1');
    expect(decodeEntry(v1, false)).toBeNull();
  });
});

describe('keys', () => {
  const scope: KeyScope = { tenant: 'o:1', model: 'm', dimensions: undefined, inputType: undefined };
  const one = (s: KeyScope, text: string) => inputKeys(s, { kind: 'text', texts: [text] })[0];

  test('tenant, model, dimensions, input_type and the exact input each make a different key; the same ones the same key', () => {
    const base = one(scope, 'hello');
    expect(one(scope, 'hello')).toBe(base);
    const variants = [
      one({ ...scope, tenant: 'o:2' }, 'hello'),
      one({ ...scope, tenant: 'w:1' }, 'hello'),
      one({ ...scope, model: 'n' }, 'hello'),
      one({ ...scope, dimensions: 256 }, 'hello'),
      one({ ...scope, inputType: 'search_query' }, 'hello'),
      one(scope, 'hello '),
      one(scope, '\ud800'),
      one(scope, '\udc00'),
      inputKeys(scope, { kind: 'tokens', tokens: [[1, 2]] })[0],
      inputKeys(scope, { kind: 'tokens', tokens: [[12]] })[0],
      inputKeys(scope, { kind: 'multimodal', items: [[{ type: 'text', text: 'hello' }]] })[0],
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  test('a header field cannot run into the input (no ambiguity at the boundary)', () => {
    expect(one({ ...scope, model: 'm"\n' }, 'x')).not.toBe(one(scope, '"\nx'));
  });
});

describe('stored forms', () => {
  test('a raw float vector keeps its exact text (only); base64 is encoded from it as the uncached path does', () => {
    const raw = new RawVector(Buffer.from('[0.10000000000000001, -1.5E-7]'), 2);
    const form = storedForm(raw)!;
    expect([form.text!.toString(), form.floats]).toEqual(['[0.10000000000000001, -1.5E-7]', null]);
    const e = decodeEntry(encodeEntry(entry({ ...form })))!;
    expect((answerFrom(e, 'float') as RawVector).bytes.toString()).toBe('[0.10000000000000001, -1.5E-7]');
    expect((answerFrom(e, 'base64') as RawVector).values()).toEqual([0.1, -1.5e-7]);
  });

  test('number arrays keep the JSON the client is sent and their float32 bytes', () => {
    const form = storedForm([0.5, 1 / 3])!;
    expect(form.text!.toString()).toBe(JSON.stringify([0.5, 1 / 3]));
    expect(answerFrom(entry({ ...form }), 'base64')).toBe(
      Buffer.from(Float32Array.from([0.5, 1 / 3]).buffer).toString('base64'),
    );
  });

  test('base64 from the upstream is kept only when it re-encodes to itself; it cannot answer float', () => {
    const b64 = Buffer.from(Float32Array.from([1, 2]).buffer).toString('base64');
    const form = storedForm(b64)!;
    expect(form.text).toBeNull();
    expect(answerFrom(entry({ ...form }), 'base64')).toBe(b64);
    expect(answerFrom(entry({ ...form }), 'float')).toBeUndefined();
    expect(storedForm(b64.replace(/=+$/, ''))).toBeNull(); // unpadded: not canonical
    expect(storedForm('AAA=')).toBeNull(); // not a whole float32
  });
});

describe('apportion', () => {
  test('shares sum to the total, proportional to the weights', () => {
    expect(apportion(10, [1, 1, 2])).toEqual([3, 2, 5]);
    expect(apportion(7, [0, 0])).toEqual([4, 3]);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100000 }),
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 64 }),
        (total, weights) => {
          const parts = apportion(total, weights);
          return parts.reduce((a, b) => a + b, 0) === total && parts.every((p) => Number.isInteger(p) && p >= 0);
        },
      ),
    );
  });
});

describe('request directives', () => {
  test('cache:false and no-cache skip the read, no-store the write', () => {
    expect(modeFor({ bodyCache: undefined, cacheControl: null })).toEqual({ read: true, write: true });
    expect(modeFor({ bodyCache: false, cacheControl: null })).toEqual({ read: false, write: true });
    expect(modeFor({ bodyCache: true, cacheControl: 'No-Cache' })).toEqual({ read: false, write: true });
    expect(modeFor({ bodyCache: undefined, cacheControl: 'max-age=0, no-store' })).toEqual({
      read: true,
      write: false,
    });
    expect(modeFor({ bodyCache: undefined, cacheControl: 'no-cache="x"' })).toEqual({ read: false, write: true });
  });
});

describe('in-process store', () => {
  test('bounded in bytes: the least recently used entries are evicted and counted', async () => {
    const metrics = new Metrics();
    const store = new MemoryCacheStore(1024 * 1024, metrics);
    const value = Buffer.alloc(100 * 1024);
    for (let i = 0; i < 10; i++) await store.set(`k${i}`, value, 60_000);
    await store.getMany(['k0']); // k0 is now the most recently used
    await store.set('k10', value, 60_000);
    const [k0, k1, k10] = await store.getMany(['k0', 'k1', 'k10']);
    expect([k0 === value, k1, k10 === value]).toEqual([true, null, true]);
    expect((await metrics.embeddingsCacheEvictions.get()).values).toEqual([
      expect.objectContaining({ labels: { reason: 'evict' }, value: 1 }),
    ]);
    const bytes = (await metrics.embeddingsCacheBytes.get()).values[0]!.value;
    expect(bytes).toBeGreaterThan(9 * 100 * 1024);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
  });
});
