/**
 * The profile summaries the ladder and bench:profile print (bench/lib/profile-summary.js) on
 * made-up CPU profiles: self time per request by file or package, idle left out, rows ordered by
 * how much more the last target spends than the first; and the gateway's own functions' inclusive
 * time.
 */
import { compareUnits, inclusiveOwn, type CpuProfile } from '../lib/profile-summary';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

/** root → idle | router (a package) | check (ours); `us` of self time each, sampled 100 µs apart. */
function profile(us: { idle: number; router: number; check: number }): CpuProfile {
  const ids = { idle: 2, router: 3, check: 4 } as const;
  const samples: number[] = [];
  for (const [name, total] of Object.entries(us) as Array<[keyof typeof ids, number]>)
    for (let t = 0; t < total; t += 100) samples.push(ids[name]);
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('next', 'file:///app/node_modules/router/index.js') },
      { id: 4, callFrame: frame('numberArrayEnd', 'file:///app/dist/src/providers/raw-json.js') },
    ],
    samples,
    timeDeltas: samples.map(() => 100),
    startTime: 0,
    endTime: samples.length * 100,
  };
}

/** The cells of the row whose last column is `label`. */
const row = (text: string, label: string): number[] => {
  const line = text.split('\n').find((l) => l.trim().endsWith(label) || l.startsWith(label));
  if (!line) throw new Error(`no row ${label} in\n${text}`);
  return (line.match(/-?\d+\.\d/g) ?? []).map(Number);
};

describe('compareUnits', () => {
  it('gives each file or package µs per request per target, busy without idle, the largest growth first', () => {
    const text = compareUnits([
      { name: 'floor', profile: profile({ idle: 5000, router: 2000, check: 0 }), requests: 100 },
      { name: 'full', profile: profile({ idle: 1000, router: 3000, check: 4000 }), requests: 100 },
    ]);
    expect(row(text, 'busy')).toEqual([20, 70]);
    expect(row(text, 'router')).toEqual([20, 30]);
    expect(row(text, 'src/providers/raw-json.js')).toEqual([0, 40]);
    // raw-json grew by 40 µs, the router by 10: raw-json comes first.
    expect(text.indexOf('src/providers/raw-json.js')).toBeLessThan(text.indexOf('  router'));
    expect(text).not.toMatch(/idle/);
  });
});

describe('inclusiveOwn', () => {
  it("counts a sample once for each of the gateway's own functions on its stack, not for packages", () => {
    const p: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 5] },
        { id: 2, callFrame: frame('handler', 'file:///app/dist/src/routes/embeddings.js'), children: [3] },
        { id: 3, callFrame: frame('next', 'file:///app/node_modules/router/index.js'), children: [4] },
        { id: 4, callFrame: frame('numberArrayEnd', 'file:///app/dist/src/providers/raw-json.js') },
        { id: 5, callFrame: frame('(idle)') },
      ],
      samples: [4, 4, 3, 5],
      timeDeltas: [100, 100, 100, 100],
      startTime: 0,
      endTime: 400,
    };
    const text = inclusiveOwn(p);
    expect(text).toMatch(/^\s+100\.0 %\s+handler src\/routes\/embeddings\.js:1$/m);
    expect(text).toMatch(/^\s+66\.7 %\s+numberArrayEnd src\/providers\/raw-json\.js:1$/m);
    expect(text).not.toMatch(/router/);
  });
});
