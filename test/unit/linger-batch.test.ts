/**
 * LingerBatch: items added close together reach `send` as one batch (within the linger, or the
 * event-loop turn with 0), a full batch goes at once, and a flush sends what waits without
 * waiting for the linger.
 */
import { LingerBatch } from '../../src/usage/linger-batch';

/** A batcher whose `send` records each batch's items. */
function recording(max: number, lingerMs: number) {
  const batches: number[][] = [];
  const batcher = new LingerBatch<number>(max, lingerMs, (items: number[]) => {
    batches.push(items);
    return Promise.resolve();
  });
  return { batches, batcher };
}

describe('LingerBatch', () => {
  afterEach(() => jest.useRealTimers());

  test('with no linger, the items of one turn go together and a later turn sends its own', async () => {
    const { batches, batcher } = recording(10, 0);
    await Promise.all([batcher.add(1), batcher.add(2), batcher.add(3)]);
    await batcher.add(4);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  test('items within the linger share a batch; a full batch goes at once; flush sends the rest now', async () => {
    jest.useFakeTimers();
    const { batches, batcher } = recording(3, 60_000);
    const first = batcher.add(1);
    await jest.advanceTimersByTimeAsync(59_999); // still within the linger
    expect(batches).toEqual([]);
    expect(batcher.items()).toEqual([1]);
    await Promise.all([first, batcher.add(2), batcher.add(3)]);
    expect(batches).toEqual([[1, 2, 3]]);
    const fourth = batcher.add(4);
    expect(batcher.length).toBe(1);
    await batcher.flush();
    await fourth;
    expect(batches).toEqual([[1, 2, 3], [4]]);
    expect(batcher.length).toBe(0);
  });

  test("each item settles as its batch was handled: a failed send rejects that batch's adders only", async () => {
    let fail = true;
    const batcher = new LingerBatch<number>(2, 60_000, () =>
      fail ? Promise.reject(new Error('refused')) : Promise.resolve(),
    );
    const [a, b] = [batcher.add(1), batcher.add(2)];
    await expect(a).rejects.toThrow('refused');
    await expect(b).rejects.toThrow('refused');
    fail = false;
    const c = batcher.add(3);
    await batcher.flush();
    await expect(c).resolves.toBeUndefined();
  });
});
