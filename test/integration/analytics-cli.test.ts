/**
 * The CLI's classifier and analytics commands against a real embedded data dir: create from a
 * rules file (validated like the API, patterns RE2 cannot run refused), list, delete, one maintenance
 * pass, and usage errors (exit 2) before the database is opened.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../src/cli/run';
import { tempDir } from '../helpers/temp-dir';
import { seededDataDir } from '../helpers/services';

async function cli(env: NodeJS.ProcessEnv, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { line: (t) => out.push(t) }, { line: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('classifiers create/list/delete and analytics maintain', async () => {
  const dir = tempDir('sy-cli-analytics-');
  // A migrated data dir from the suite's archive: initdb alone took seconds of this test on a busy machine.
  const env = { SWITCHYARD_DATA_DIR: await seededDataDir('sy-cli-analytics-data-') };
  expect((await cli(env, 'orgs', 'create', 'Acme')).code).toBe(0);
  const rules = path.join(dir, 'rules.json');
  writeFileSync(
    rules,
    JSON.stringify({
      sample_rate: 0.25,
      dimensions: [{ name: 'topic', rules: [{ value: 'billing', keywords: ['invoice'] }] }],
    }),
  );
  const created = await cli(env, 'classifiers', 'create', '--name', 'Support', '--file', rules);
  expect(created).toMatchObject({
    code: 0,
    out: expect.stringMatching(/^created classifier "Support" \(([0-9a-f-]{36})\)/),
  });
  const id = /\(([0-9a-f-]{36})\)/.exec(created.out)![1]!;
  const listed = await cli(env, 'classifiers', 'list');
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.out)).toMatchObject({ id, name: 'Support', sample_rate: 0.25, active: true });

  writeFileSync(
    rules,
    JSON.stringify({ dimensions: [{ name: 'topic', rules: [{ value: 'x', patterns: ['(a+)\\1'] }] }] }),
  );
  const unsupported = await cli(env, 'classifiers', 'create', '--name', 'Bad', '--file', rules);
  expect(unsupported).toMatchObject({ code: 1, err: expect.stringMatching(/patterns\.0 uses a backreference `\\1`/) });
  writeFileSync(rules, JSON.stringify({ dimensions: 'nope' }));
  expect(await cli(env, 'classifiers', 'create', '--name', 'Bad', '--file', rules)).toMatchObject({
    code: 1,
    err: expect.stringMatching(/invalid classifier: file.dimensions/),
  });

  expect(await cli(env, 'analytics', 'maintain', '--retention-days', '40')).toMatchObject({
    code: 0,
    out: expect.stringMatching(/^rollup: \d+ hours recomputed; retention: 0 raw rows deleted$/),
  });
  expect((await cli(env, 'classifiers', 'delete', id)).code).toBe(0);
  expect((await cli(env, 'classifiers', 'list')).out).toBe('no classifiers');
  expect(await cli(env, 'classifiers', 'delete', id)).toMatchObject({ code: 1, err: 'error: Resource not found' });

  expect((await cli(env, 'classifiers', 'create', '--name', 'x')).code).toBe(2);
  expect((await cli(env, 'classifiers', 'delete', 'not-a-uuid')).code).toBe(2);
  expect((await cli(env, 'analytics', 'maintain', '--retention-days', '7')).code).toBe(2);
  // Each command opens the embedded data dir: seconds each on a loaded machine.
}, 120_000);
