/**
 * Completion slices below HTTP: the meter asks for the next slice once half of the last is used,
 * makes the answer wait while one is being asked for, and cuts it once one was refused; the sliced
 * reservation spreads the settle over its slices (each capped at its own hold, the last taking any
 * excess), awaits a slice still being asked for before it settles or releases, and grants nothing
 * after. The behaviour through the gateway is test/integration/budget-slices.test.ts.
 */
import { SlicedReservation, type SliceBudget } from '../../src/budgets/slices';
import type { Reservation } from '../../src/budgets/types';
import { SliceMeter } from '../../src/inference/slice-meter';

const SLICE = { tokens: 100, usdPerToken: 0.01, ceilingTokens: 300 };

/** A budget whose answers the test gives, one per `extend`, in order. */
function scriptedBudget(): SliceBudget & { asked: number[]; answer(granted: boolean): Promise<void> } {
  const waiting: Array<(granted: boolean) => void> = [];
  const asked: number[] = [];
  return {
    asked,
    heldUsd: 0,
    extend: (usd) => {
      asked.push(usd);
      return new Promise<boolean>((resolve) => waiting.push(resolve));
    },
    answer: async (granted) => {
      waiting.shift()!(granted);
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

describe('SliceMeter', () => {
  test('covered under half a slice; asks at half; waits past the hold while asking; covered again once granted', async () => {
    const budget = scriptedBudget();
    const meter = new SliceMeter(budget, SLICE);
    expect(meter.observe(49)).toBe('covered');
    expect(budget.asked).toEqual([]);
    expect(meter.observe(50)).toBe('covered');
    expect(budget.asked).toEqual([1]);
    expect(meter.observe(120)).toBe('waiting');
    await budget.answer(true);
    await meter.decided;
    expect(meter.observe(120)).toBe('covered');
    expect(budget.asked).toEqual([1]);
  });

  test('a refused slice cuts the answer once it passes its hold, and nothing more is asked for', async () => {
    const budget = scriptedBudget();
    const meter = new SliceMeter(budget, SLICE);
    meter.observe(60);
    await budget.answer(false);
    expect(meter.observe(90)).toBe('covered');
    expect(meter.observe(101)).toBe('cut');
    expect(budget.asked).toHaveLength(1);
  });

  test('no slice is asked for past the completion ceiling', async () => {
    const budget = scriptedBudget();
    const meter = new SliceMeter(budget, SLICE);
    for (const at of [60, 160]) {
      meter.observe(at);
      await budget.answer(true);
    }
    expect(budget.asked).toHaveLength(2);
    expect(meter.observe(10_000)).toBe('covered');
    expect(budget.asked).toHaveLength(2);
  });
});

/** A reservation that notes how it ended. */
function noted(log: string[], name: string): Reservation {
  return {
    settle: (usd) => Promise.resolve(void log.push(`${name} settle ${usd}`)),
    release: () => Promise.resolve(void log.push(`${name} release`)),
  };
}

describe('SlicedReservation', () => {
  test('the settle is spread over the slices in order, each capped at its hold; unused slices are released', async () => {
    const log: string[] = [];
    let n = 0;
    const r = new SlicedReservation(noted(log, 'first'), 2, () => Promise.resolve(noted(log, `slice${++n}`)));
    expect(await r.extend(1)).toBe(true);
    expect(await r.extend(1)).toBe(true);
    expect(r.heldUsd).toBe(4);
    await r.settle(2.5);
    expect(log.sort()).toEqual(['first settle 2', 'slice1 settle 0.5', 'slice2 release']);
  });

  test('a cost above every hold reaches the last slice (the guard caps and counts it)', async () => {
    const log: string[] = [];
    const r = new SlicedReservation(noted(log, 'first'), 1, () => Promise.resolve(noted(log, 'slice')));
    await r.extend(1);
    await r.settle(5);
    expect(log.sort()).toEqual(['first settle 1', 'slice settle 4']);
  });

  test('a slice still being granted when the client leaves is awaited and given back; none is granted after', async () => {
    const log: string[] = [];
    let grant: (r: Reservation) => void = () => undefined;
    const r = new SlicedReservation(
      noted(log, 'first'),
      1,
      () => new Promise<Reservation>((resolve) => (grant = resolve)),
    );
    const late = r.extend(1);
    const released = r.release();
    grant(noted(log, 'late'));
    expect(await late).toBe(true);
    await released;
    expect(log.sort()).toEqual(['first release', 'late release']);
    expect(await r.extend(1)).toBe(false);
  });

  test('a slice the guard refuses (a 402) is false and holds nothing', async () => {
    const log: string[] = [];
    const r = new SlicedReservation(noted(log, 'first'), 1, () => Promise.reject(new Error('402')));
    expect(await r.extend(1)).toBe(false);
    expect(r.heldUsd).toBe(1);
    await r.settle(0.5);
    expect(log).toEqual(['first settle 0.5']);
  });
});
