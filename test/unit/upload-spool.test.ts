/**
 * The upload spool removes the file of a write whose source failed, even when the failure comes
 * before the file's open has completed (the removal must wait for it, or the open creates the
 * file after it was removed, and it stays).
 */
import { readdir } from 'node:fs/promises';
import { UploadSpool } from '../../src/files/spool';
import { tempDir } from '../helpers/temp-dir';

describe('upload spool', () => {
  it('leaves no file and no reserved bytes behind when the source fails right after its first piece', async () => {
    const dir = tempDir('sy-spool-unit-');
    const usage: number[] = [];
    const spool = new UploadSpool(dir, 1_000_000, (bytes) => usage.push(bytes));
    // eslint-disable-next-line @typescript-eslint/require-await -- spool.write takes an AsyncIterable: an async source that fails after its first chunk, with nothing to await
    const failing = async function* () {
      yield Buffer.from('abc');
      throw new Error('unsupported file type');
    };
    const outcomes = await Promise.all(
      Array.from({ length: 300 }, () =>
        spool.write(failing()).then(
          () => 'written',
          (err: Error) => err.message,
        ),
      ),
    );
    expect(new Set(outcomes)).toEqual(new Set(['unsupported file type']));
    expect(await readdir(dir)).toEqual([]);
    expect(usage.at(-1)).toBe(0);
  });
});
