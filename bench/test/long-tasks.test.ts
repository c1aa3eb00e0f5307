/**
 * The benchmark's long-task reading (bench/lib/profile-summary.js) on a made-up CPU profile: a
 * stretch's owner is the outermost frame of our code, and gaps between samples long enough to
 * mean the thread was not running are counted as stalled, not as work.
 */
import { longTasks, type CpuProfile } from '../lib/profile-summary';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

/** root → idle | drain (ours) → stringify (a builtin below it) | (garbage collector). */
function profile(samples: Array<[id: number, gapUs: number]>): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 5] },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('drain', 'file:///app/dist/src/usage/outbox.js'), children: [4] },
      { id: 4, callFrame: frame('stringify', 'node:internal/json') },
      { id: 5, callFrame: frame('(garbage collector)') },
    ],
    samples: samples.map(([id]) => id),
    // timeDeltas[i + 1] is the time from sample i to the next one.
    timeDeltas: [0, ...samples.map(([, gap]) => gap)],
    startTime: 0,
    endTime: samples.reduce((t, [, gap]) => t + gap, 0),
  };
}

describe('longTasks', () => {
  it('names a stretch by its outermost frame of our code and counts only stretches of minMs', () => {
    const text = longTasks(
      profile([
        [2, 200],
        [4, 200],
        [4, 200],
        [3, 200],
        [4, 200],
        [5, 200],
        [2, 200],
        [5, 200],
        [2, 200],
      ]),
      1,
    );
    expect(text).toMatch(/busy stretches of 1 ms or more: 1 in /);
    expect(text).toMatch(/^\s+1\s+1 ms\s+0 ms\s+1\.0 ms\s+drain src\/usage\/outbox\.js$/m);
    expect(text).not.toMatch(/garbage collector/);
    expect(text).toMatch(/0 of them hold a gap/);
  });

  it('counts a gap of 1 ms or more inside a stretch as stalled', () => {
    const text = longTasks(
      profile([
        [2, 200],
        [5, 200],
        [5, 3000],
        [5, 200],
        [2, 200],
        [4, 200],
        [4, 200],
        [2, 200],
      ]),
      1,
    );
    expect(text).toMatch(
      /1 of them hold a gap of 1 ms or more between samples \(the thread was not running\): 3 ms stalled/,
    );
    expect(text).toMatch(/^\s+1\s+3 ms\s+3 ms\s+3\.4 ms\s+\(garbage collector\)$/m);
  });
});
