/**
 * The request path's counters and histograms (`observability/series`) are a cheaper drop-in
 * for prom-client's: fed the same calls, a registry holding them prints exactly what a registry
 * holding prom-client's prints, and they refuse what prom-client refuses.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { HotCounter, HotHistogram } from '../../src/observability/series';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.5, 1];

function pair() {
  const ours = new Registry();
  const theirs = new Registry();
  const spec = { name: 'x_total', help: 'Things by kind and place', labelNames: ['kind', 'place'] as const };
  const hist = { name: 'x_seconds', help: 'Durations', labelNames: ['route'] as const, buckets: BUCKETS };
  return {
    ours,
    theirs,
    counters: [new HotCounter({ ...spec, registers: [ours] }), new Counter({ ...spec, registers: [theirs] })] as const,
    histograms: [new HotHistogram({ ...hist, registers: [ours] }), new Histogram({ ...hist, registers: [theirs] })] as const,
    plain: [new HotCounter({ name: 'y_total', help: 'No labels', registers: [ours] }), new Counter({ name: 'y_total', help: 'No labels', registers: [theirs] })] as const,
  };
}

test('prints the same exposition text as prom-client for the same calls', async () => {
  const p = pair();
  let seed = 3;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const kinds = ['a', 'b', 'with "quote"', 'x\\y'];
  for (let i = 0; i < 2000; i++) {
    const labels = { kind: kinds[Math.floor(rand() * kinds.length)]!, place: rand() < 0.5 ? 'here' : 'there' };
    const by = rand() < 0.3 ? undefined : Math.floor(rand() * 5);
    for (const c of p.counters) c.inc(labels, by);
    // values below, on and between the bounds, and above the last one
    const v = rand() < 0.1 ? BUCKETS[Math.floor(rand() * BUCKETS.length)]! : rand() < 0.05 ? 3 + rand() : rand() * 0.02;
    const route = rand() < 0.8 ? '/api/v1/embeddings' : '/api/v1/keys';
    for (const h of p.histograms) h.observe({ route }, v);
    for (const c of p.plain) c.inc();
  }
  p.plain[0].inc(2.5);
  p.plain[1].inc(2.5);
  const text = await p.ours.metrics();
  expect(text).toBe(await p.theirs.metrics());
  expect(text).toContain('x_seconds_bucket{le="+Inf",route="/api/v1/keys"}');
  // The JSON too (prom-client adds `exemplar: null` to bucket samples; exemplars are not used here).
  const json = async (r: Registry) => JSON.parse(JSON.stringify(await r.getMetricsAsJSON(), (k, v: unknown) => (k === 'exemplar' ? undefined : v))) as unknown;
  expect(await json(p.ours)).toEqual(await json(p.theirs));
});

test('label sets never share a series, whatever the values contain', async () => {
  const r = new Registry();
  const c = new HotCounter({ name: 'z_total', help: 'z', labelNames: ['a', 'b'] as const, registers: [r] });
  c.inc({ a: 'p:1', b: '' });
  c.inc({ a: 'p', b: '1:' });
  c.inc({ a: 'p' });
  c.inc({ b: 'p' });
  const values = (await c.get()).values;
  expect(values.map((v) => v.labels)).toEqual([{ a: 'p:1', b: '' }, { a: 'p', b: '1:' }, { a: 'p' }, { b: 'p' }]);
  expect(values.every((v) => v.value === 1)).toBe(true);
});

test('refuses undeclared labels, negative and non-finite values, like prom-client', () => {
  const r = new Registry();
  const c = new HotCounter({ name: 'c_total', help: 'c', labelNames: ['a'] as const, registers: [r] });
  const h = new HotHistogram({ name: 'h_seconds', help: 'h', labelNames: ['a'] as const, buckets: [1], registers: [r] });
  expect(() => c.inc({ b: 'x' } as never)).toThrow(/not included/);
  expect(() => c.inc({ a: 'x' }, -1)).toThrow(/decrease/);
  expect(() => c.inc({ a: 'x' }, Number.NaN)).toThrow(TypeError);
  expect(() => h.observe({ a: 'x' }, Number.POSITIVE_INFINITY)).toThrow(TypeError);
  expect(() => new HotHistogram({ name: 'h2', help: 'h', buckets: [1, 1], registers: [r] })).toThrow(/distinct/);
  expect(() => new HotCounter({ name: 'c_total', help: 'again', registers: [r] })).toThrow(/already been registered/);
});

test('reset forgets every series (Registry.resetMetrics)', async () => {
  const p = pair();
  p.counters[0].inc({ kind: 'a' });
  p.histograms[0].observe({ route: '/' }, 0.1);
  p.ours.resetMetrics();
  expect((await p.counters[0].get()).values).toEqual([]);
  expect((await p.histograms[0].get()).values).toEqual([]);
});
