/**
 * `Database.copyIn` on both engines: rows given as several chunks land whole (string and byte
 * chunks, multi-byte text, a large batch); a refused COPY writes nothing and leaves the connection
 * ready for the next statement, which on Postgres matters because the rows are sent before the
 * server has accepted the COPY (copy-in.ts); names are checked before they reach SQL.
 */
import { DATABASES } from '../helpers/services';
import type { Database } from '../../src/store/db';

describe.each(DATABASES)('copyIn on $name', (dbKind) => {
  let db: Database;
  beforeAll(async () => {
    db = await dbKind.open();
    await db.exec('CREATE TABLE copy_probe (id integer PRIMARY KEY, note text)');
  });
  afterAll(async () => {
    await db.close();
  });

  const notes = async (from: number, to: number) =>
    (await db.query<{ id: number; note: string | null }>('SELECT id, note FROM copy_probe WHERE id BETWEEN $1 AND $2 ORDER BY id', [from, to]));

  test('chunks are concatenated into whole rows: strings and bytes, multi-byte text, escapes and NULL', async () => {
    await db.copyIn('copy_probe', ['id', 'note'], ['1\tünï 🐑\n2\t', Buffer.from('tab\\there\n3\t\\N\n', 'utf8')]);
    expect(await notes(1, 3)).toEqual([
      { id: 1, note: 'ünï 🐑' },
      { id: 2, note: 'tab\there' },
      { id: 3, note: null },
    ]);
  });

  test('a large batch lands whole', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `${1000 + i}\t${'x'.repeat(40)}-${i}\n`);
    await db.copyIn('copy_probe', ['id', 'note'], [rows.slice(0, 7000).join(''), Buffer.from(rows.slice(7000).join(''))]);
    const { n } = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM copy_probe WHERE id >= 1000'))[0]!;
    expect(n).toBe(20_000);
    expect((await notes(20_999, 20_999))[0]!.note).toBe(`${'x'.repeat(40)}-19999`);
  });

  test('a refused COPY writes none of its rows, and every connection is usable afterwards', async () => {
    // A key already present (23505), a value of the wrong type (22P02), a table that does not exist (42P01).
    const refusals: Array<[string, string]> = [['100\tnew\n1\tagain\n', '23505'], ['101\tok\nnot-a-number\tx\n', '22P02']];
    for (const [rows, code] of refusals) {
      await expect(db.copyIn('copy_probe', ['id', 'note'], [rows])).rejects.toMatchObject({ code });
    }
    await expect(db.copyIn('no_such_table', ['id'], ['1\n'])).rejects.toMatchObject({ code: '42P01' });
    expect(await notes(100, 101)).toEqual([]);
    // More statements than the pool has connections, so each of them is used after a refusal.
    for (let i = 0; i < 12; i++) await db.copyIn('copy_probe', ['id', 'note'], [`${200 + i}\tafter\n`]);
    expect(await notes(200, 211)).toHaveLength(12);
  });

  test('table and column names are checked before they reach SQL', async () => {
    await expect(db.copyIn('copy_probe; DROP TABLE copy_probe', ['id'], ['1\n'])).rejects.toThrow(/bad identifier/);
    await expect(db.copyIn('copy_probe', ['id', 'note"'], ['1\tx\n'])).rejects.toThrow(/bad identifier/);
    expect(await notes(1, 1)).toHaveLength(1);
  });
});
