/**
 * The lint rules that keep dependencies behind their public APIs and errors logged whole
 * (eslint.config.mjs, PRIVATE_ACCESS and LOGGED_ERRORS): each form, as a small fixture placed
 * under src/, is refused; ordinary code is not; and src/ itself has none.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = path.join(__dirname, '..', '..');
// The project's config with the type-aware rules off: the rules checked here are syntactic, and a
// fixture that is not on disk is in no tsconfig, so the project service would refuse to parse it.
const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });

/** The no-restricted-syntax findings for `code` as if it were `src/<name>`. */
async function findings(code: string, name = 'kv/fixture.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, 'src', name) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

const REFUSED: Array<[string, string]> = [
  [
    'ioredis command timer',
    'declare const command: { _commandTimeoutTimer?: unknown };\nexport const t = command._commandTimeoutTimer;\n',
  ],
  ['ioredis isResolved', 'declare const command: { isResolved: boolean };\nexport const done = command.isResolved;\n'],
  [
    'pg connection.stream',
    "declare const client: { connection: { stream: { write(b: string): void } } };\nclient.connection.stream.write('x');\n",
  ],
  [
    'socket through a cast',
    "import { Redis } from 'ioredis';\ndeclare const c: Redis;\nexport const s = (c as unknown as { stream: unknown }).stream;\n",
  ],
  [
    'hand-made metric registered',
    "import { Registry } from 'prom-client';\nexport class M { constructor(r: Registry) { r.registerMetric(this as never); } }\n",
  ],
  [
    'Express app.handle replaced',
    "import express from 'express';\nconst app = express();\n(app as { handle?: unknown }).handle = () => undefined;\n",
  ],
  [
    'ioredis sendCommand patched',
    "import { Redis } from 'ioredis';\nconst c = new Redis();\nc.sendCommand = () => Promise.resolve(null) as never;\n",
  ],
  [
    'underscore member of a library object',
    "import { Pool } from 'pg';\nconst pool = new Pool();\nexport const clients = (pool as { _clients?: unknown })._clients;\n",
  ],
  ['ad-hoc shape cast', 'declare const x: object;\nexport const y = x as unknown as { secret: string };\n'],
];

test.each(REFUSED)('refuses %s', async (_what, code) => {
  expect(await findings(code)).not.toEqual([]);
});

test.each([
  [
    'err: (err as Error).message',
    "declare const logger: { warn(m: string, f: object): void };\ntry { JSON.parse('x'); } catch (err) { logger.warn('failed', { err: (err as Error).message }); }\n",
  ],
  [
    'error: e.message',
    "declare const logger: { error(m: string, f: object): void };\ndeclare const e: Error;\nlogger.error('failed', { id: 1, error: e.message });\n",
  ],
])('refuses logging only the message: %s', async (_what, code) => {
  expect(await findings(code)).toEqual([expect.stringContaining('Log the error itself')]);
});

test('accepts logging the error itself, and other message fields', async () => {
  const code = [
    'declare const logger: { warn(m: string, f: object): void };',
    'declare const e: Error;',
    "logger.warn('failed', { err: e });",
    "logger.warn('request failed', { message: e.message });",
    '',
  ].join('\n');
  expect(await findings(code)).toEqual([]);
});

test('files still being rewritten keep the logging rule', async () => {
  const code =
    "declare const logger: { warn(m: string, f: object): void };\ndeclare const e: Error;\nlogger.warn('failed', { err: e.message });\n";
  expect(await findings(code, 'http/hot-route.ts')).toHaveLength(1);
});

test('accepts the same libraries through their public APIs', async () => {
  const code = [
    "import { Redis } from 'ioredis';",
    "import { Counter, Registry } from 'prom-client';",
    'const registry = new Registry();',
    "export const c = new Counter({ name: 'x_total', help: 'x', registers: [registry] });",
    'const client = new Redis({ commandTimeout: 100, enableAutoPipelining: true });',
    "client.on('error', () => undefined);",
    'export class Own { private handle = 1; bump(): void { this.handle = 2; } }',
    '',
  ].join('\n');
  expect(await findings(code)).toEqual([]);
});

test('src/ has no private access outside the files still being rewritten', async () => {
  const results = await eslint.lintFiles(['src/**/*.ts']);
  const found = results.flatMap((r) =>
    r.messages
      .filter((m) => m.ruleId === 'no-restricted-syntax')
      .map((m) => `${path.relative(ROOT, r.filePath)}:${m.line} ${m.message}`),
  );
  expect(found).toEqual([]);
  // Linting the whole of src/ with type information takes tens of seconds on a loaded machine.
}, 180_000);
