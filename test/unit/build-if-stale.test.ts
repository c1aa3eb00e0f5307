/**
 * `npm start`'s prestart (scripts/build-if-stale.js, issue 61 item 10) builds only when it must:
 * decided on a temporary project tree whose file times are set explicitly, so no test waits on the
 * clock. Then the build step itself, with a stand-in `npm run build`: a success writes the stamp,
 * a failure writes none and passes its status on.
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync, existsSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/temp-dir';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const stale = require('../../scripts/build-if-stale.js') as {
  STAMP: string;
  staleReason(root: string): string | null;
  writeStamp(root: string, startedAtMs: number): void;
  buildIfStale(root: string, log?: (line: string) => void): number;
};

/** A fixed moment long past: the stamped build started then. */
const BUILT_AT = Date.parse('2025-06-01T12:00:00Z');
const BEFORE = new Date(BUILT_AT - 60_000);
const AFTER = new Date(BUILT_AT + 60_000);

const INPUTS = [
  'src/main.ts',
  'src/http/app.ts',
  'dashboard/src/app.tsx',
  'schemas/config.json',
  'config/default.yaml',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
const OUTPUTS = ['dist/src/main.js', 'dist/dashboard/index.html'];

function write(root: string, file: string, text = 'x', at = BEFORE): void {
  const full = path.join(root, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
  utimesSync(full, at, at);
}

/** Every directory below `root` (and `root`) dated `at`, deepest first. */
function dateDirs(root: string, at: Date): void {
  const dirs = new Set<string>();
  for (const file of [...INPUTS, ...OUTPUTS])
    for (let d = path.dirname(file); d !== '.'; d = path.dirname(d)) dirs.add(d);
  for (const d of [...dirs].sort((a, b) => b.length - a.length))
    if (existsSync(path.join(root, d))) utimesSync(path.join(root, d), at, at);
}

/** A project built at BUILT_AT from inputs all older than that. */
function builtTree(): string {
  const root = tempDir('sy-stale-');
  for (const file of INPUTS) write(root, file);
  for (const file of OUTPUTS) write(root, file, 'built', AFTER);
  stale.writeStamp(root, BUILT_AT);
  dateDirs(root, BEFORE);
  return root;
}

test('a build stamped after every input is current', () => {
  expect(stale.staleReason(builtTree())).toBeNull();
});

test.each(INPUTS)('an edit of %s after the build makes it stale', (file) => {
  const root = builtTree();
  utimesSync(path.join(root, file), AFTER, AFTER);
  expect(stale.staleReason(root)).toBe(`${file.split('/')[0]} changed since the last build`);
});

test('a new file, and a deleted one, make it stale (their directory changes)', () => {
  const added = builtTree();
  write(added, 'src/new.ts', 'x', BEFORE); // the file itself looks old, its directory does not
  expect(stale.staleReason(added)).toBe('src changed since the last build');
  const removed = builtTree();
  unlinkSync(path.join(removed, 'dashboard/src/app.tsx'));
  expect(stale.staleReason(removed)).toBe('dashboard changed since the last build');
});

test("files that are not inputs do not: the build's own output, a README, a node_modules below an input", () => {
  const root = builtTree();
  write(root, 'dist/src/extra.js', 'x', AFTER);
  write(root, 'README.md', 'x', AFTER);
  write(root, 'test/some.test.ts', 'x', AFTER);
  write(root, 'dashboard/node_modules/pkg/index.js', 'x', AFTER);
  utimesSync(path.join(root, 'dashboard'), BEFORE, BEFORE);
  expect(stale.staleReason(root)).toBeNull();
});

test('a missing output or stamp means building, whatever the times', () => {
  const noMain = builtTree();
  rmSync(path.join(noMain, 'dist/src/main.js'));
  expect(stale.staleReason(noMain)).toBe(`${path.join('dist', 'src', 'main.js')} is missing`);
  const noDashboard = builtTree();
  rmSync(path.join(noDashboard, 'dist/dashboard'), { recursive: true });
  expect(stale.staleReason(noDashboard)).toBe(`${path.join('dist', 'dashboard', 'index.html')} is missing`);
  const noStamp = builtTree();
  rmSync(path.join(noStamp, stale.STAMP));
  expect(stale.staleReason(noStamp)).toBe('no build stamp');
  const badStamp = builtTree();
  writeFileSync(path.join(badStamp, stale.STAMP), 'not json');
  expect(stale.staleReason(badStamp)).toBe('no build stamp');
});

/** A tree whose `npm run build` is `script`, with nothing built yet. */
function unbuiltTree(script: string): string {
  const root = tempDir('sy-stale-build-');
  for (const file of INPUTS.filter((f) => f !== 'package.json')) write(root, file);
  write(root, 'package.json', JSON.stringify({ name: 'stand-in', private: true, scripts: { build: script } }));
  dateDirs(root, BEFORE);
  return root;
}

test('a stale tree is built once; the stamp then says it is current, and a failed build leaves no stamp', () => {
  const make =
    "node -e \"const fs=require('fs');fs.mkdirSync('dist/src',{recursive:true});fs.mkdirSync('dist/dashboard',{recursive:true});fs.writeFileSync('dist/src/main.js','');fs.writeFileSync('dist/dashboard/index.html','')\"";
  const root = unbuiltTree(make);
  const lines: string[] = [];
  expect(stale.buildIfStale(root, (l) => lines.push(l))).toBe(0);
  expect(existsSync(path.join(root, stale.STAMP))).toBe(true);
  expect(stale.staleReason(root)).toBeNull();
  expect(stale.buildIfStale(root, (l) => lines.push(l))).toBe(0);
  expect(lines).toEqual([
    `switchyard: building (${path.join('dist', 'src', 'main.js')} is missing)`,
    'switchyard: the build is current (npm run build to force one)',
  ]);

  const failing = unbuiltTree('node -e "process.exit(3)"');
  expect(stale.buildIfStale(failing, () => undefined)).toBe(3);
  expect(existsSync(path.join(failing, stale.STAMP))).toBe(false);
}, 60_000);
