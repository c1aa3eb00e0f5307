/**
 * The Dockerfile and .dockerignore, checked statically (CI has no Docker engine): lint clean
 * with dockerfile-utils, multi-stage on a pinned official Node 20 slim/alpine image, `npm ci`
 * from the lockfile, production dependencies only in the runtime stage, the files the gateway
 * reads at run time present, non-root, HEALTHCHECK on /healthz, the ports of
 * config/default.yaml exposed, and signals reaching Node (init as PID 1, exec-form CMD).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { validate, ValidationSeverity, type ValidatorSettings } from 'dockerfile-utils';
import { DockerfileParser, type Copy, type Instruction } from 'dockerfile-ast';
import { loadConfig } from '../../src/config';
import { PROJECT_ROOT } from '../../src/paths';

const DOCKERFILE = readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
const DOCKERIGNORE = readFileSync(path.join(PROJECT_ROOT, '.dockerignore'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  main: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
};
const defaults = loadConfig({});

/** Every optional lint rule of dockerfile-utils raised to an error. */
const STRICT: ValidatorSettings = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

function lint(content: string): string[] {
  return validate(content, STRICT).map(
    (d) => `line ${d.range.start.line + 1}: ${typeof d.message === 'string' ? d.message : d.message.value}`,
  );
}

interface Stage {
  name: string | null;
  image: string;
  instructions: Instruction[];
}

/** Global ARG defaults (before the first FROM), for `FROM ${ARG}`. */
function initialArgs(): Map<string, string> {
  const args = new Map<string, string>();
  for (const arg of DockerfileParser.parse(DOCKERFILE).getInitialARGs()) {
    const p = arg.getProperty();
    if (p?.getValue()) args.set(p.getName(), p.getValue() as string);
  }
  return args;
}

function parseStages(): Stage[] {
  const args = initialArgs();
  const stages: Stage[] = [];
  for (const instruction of DockerfileParser.parse(DOCKERFILE).getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const [image = '', , name = null] = (instruction.getArgumentsContent() ?? '').split(/\s+/);
      const resolved = image.replace(/\$\{?(\w+)\}?/g, (_m, v: string) => args.get(v) ?? `<unset ${v}>`);
      stages.push({ name, image: resolved, instructions: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1]?.instructions.push(instruction);
    }
  }
  return stages;
}

function argsOf(instruction: Instruction): string {
  return instruction.getArgumentsContent() ?? '';
}

function only(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.getKeyword() === keyword);
}

/** `--from=` and the source/destination words of a COPY (the parser keeps flags apart). */
function copyParts(instruction: Instruction): { from?: string; sources: string[]; dest: string } {
  const words = argsOf(instruction).split(/\s+/);
  const from = (instruction as Copy).getFromFlag?.()?.getValue() ?? undefined;
  return { from, sources: words.slice(0, -1), dest: words[words.length - 1] ?? '' };
}

/** Paths (relative to WORKDIR, no leading `./`) that a COPY creates. */
function copyTargets(instruction: Instruction): string[] {
  const { sources, dest } = copyParts(instruction);
  const clean = (p: string) =>
    path.posix
      .normalize(p)
      .replace(/^\.\/?/, '')
      .replace(/\/$/, '');
  if (dest.endsWith('/') || dest === '.')
    return sources.map((s) => clean(path.posix.join(dest, path.posix.basename(s))));
  return [clean(dest)];
}

/** The exec-form array of CMD / ENTRYPOINT / HEALTHCHECK CMD, or null for shell form. */
function execForm(text: string): string[] | null {
  const json = text.replace(/^(--\S+\s+)*(CMD\s+)?/, '');
  if (!json.startsWith('[')) return null;
  return JSON.parse(json) as string[];
}

const stages = parseStages();
const runtime = stages[stages.length - 1] as Stage;

describe('Dockerfile', () => {
  test('lints clean with dockerfile-utils (every rule an error), which does flag a broken file', () => {
    expect(lint(DOCKERFILE)).toEqual([]);
    expect(lint('FROM node:20-slim\nEXPOSE http\nCMD ["node",]\nworkdir app\n').length).toBeGreaterThanOrEqual(2);
  });

  test('multi-stage, every stage on an official Node 20 slim or alpine image pinned to a version', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const named = new Set(stages.map((s) => s.name).filter(Boolean));
    for (const stage of stages) {
      if (named.has(stage.image)) continue; // FROM an earlier stage
      expect(stage.image).toMatch(
        /^(docker\.io\/(library\/)?)?node:20(\.\d+){0,2}-(bookworm-slim|bullseye-slim|slim|alpine(3\.\d+)?)(@sha256:[0-9a-f]{64})?$/,
      );
      expect(stage.image).not.toMatch(/:latest/);
    }
  });

  test('dependencies from the lockfile with npm ci; the runtime gets production dependencies only', () => {
    expect(DOCKERFILE).not.toMatch(/npm install\b/);
    const build = stages.find((s) => only(s, 'RUN').some((r) => /npm run build\b/.test(argsOf(r))));
    expect(build).toBeDefined();
    const buildRuns = only(build as Stage, 'RUN').map(argsOf);
    expect(buildRuns.some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    expect(only(build as Stage, 'COPY').some((c) => copyParts(c).sources.includes('package-lock.json'))).toBe(true);
    // The runtime's node_modules: from a stage (or itself) that ran `npm ci --omit=dev`.
    const modules = only(runtime, 'COPY').find((c) => copyTargets(c).includes('node_modules'));
    const source = modules ? stages.find((s) => s.name === copyParts(modules).from) : runtime;
    const installs = only(source as Stage, 'RUN')
      .map(argsOf)
      .filter((r) => /\bnpm ci\b/.test(r));
    expect(installs.length).toBeGreaterThan(0);
    for (const r of installs) expect(r).toMatch(/--omit=dev\b/);
    for (const r of only(runtime, 'RUN').map(argsOf)) expect(r).not.toMatch(/\bnpm (ci|run build)\b/);
  });

  test('the runtime stage holds what the gateway reads at run time', () => {
    const copied = only(runtime, 'COPY').flatMap(copyTargets);
    // The project root is found as the folder with package.json and schemas/ (src/paths.ts).
    for (const needed of ['package.json', 'config', 'schemas', 'src/store/migrations', 'dist/src'])
      expect(copied).toContain(needed);
    // …and every path the code names with fromRoot('a', 'b', …), now or later.
    const sources = readdirSync(path.join(PROJECT_ROOT, 'src'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => readFileSync(path.join(e.parentPath, e.name), 'utf8'));
    const named = sources.flatMap((text) =>
      [...text.matchAll(/fromRoot\(((?:\s*'[^']+'\s*,?)+)\)/g)].map((m) =>
        [...(m[1] as string).matchAll(/'([^']+)'/g)].map((q) => q[1]).join('/'),
      ),
    );
    expect(named).toEqual(expect.arrayContaining(['schemas/config.json', 'src/store/migrations']));
    for (const p of named)
      expect({ p, shipped: copied.some((c) => p === c || p.startsWith(`${c}/`)) }).toEqual({ p, shipped: true });
    expect(only(runtime, 'WORKDIR').map(argsOf).pop()).toMatch(/^\//);
  });

  test('runs as a numeric non-root user', () => {
    const users = only(runtime, 'USER').map(argsOf);
    const user = users[users.length - 1] ?? '';
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/); // numeric, so Kubernetes' runAsNonRoot can verify it
  });

  test('HEALTHCHECK probes /healthz on the API port, in exec form', () => {
    const checks = only(runtime, 'HEALTHCHECK').map(argsOf);
    expect(checks).toHaveLength(1);
    const cmd = execForm(checks[0] as string);
    expect(cmd).not.toBeNull();
    expect(cmd?.join(' ')).toMatch(/\/healthz/);
    expect(cmd?.join(' ')).toMatch(new RegExp(`process\\.env\\.PORT\\s*\\|\\|\\s*${defaults.server.port}`));
  });

  test('EXPOSEs the API and metrics ports of config/default.yaml', () => {
    const ports = only(runtime, 'EXPOSE')
      .flatMap((e) => argsOf(e).split(/\s+/))
      .map((p) => Number(p.replace(/\/tcp$/, '')));
    expect(ports.sort()).toEqual([defaults.server.port, defaults.server.metricsPort].sort());
  });

  test('SIGTERM reaches Node: STOPSIGNAL, an init as PID 1, and node itself (not npm) as the command', () => {
    expect(only(runtime, 'STOPSIGNAL').map(argsOf)).toEqual(['SIGTERM']);
    const entrypoint = execForm(argsOf(only(runtime, 'ENTRYPOINT').pop() as Instruction));
    expect(entrypoint?.[0]).toMatch(/(^|\/)(tini|dumb-init)$/);
    const init = path.basename(entrypoint?.[0] ?? '');
    expect(only(runtime, 'RUN').some((r) => new RegExp(`(apt-get|apk) .*\\b${init}\\b`).test(argsOf(r)))).toBe(true);
    const cmd = execForm(argsOf(only(runtime, 'CMD').pop() as Instruction));
    // Node's flags live in one place, `npm start`, which the image and the benchmark copy.
    const startFlags = (pkg.scripts.start ?? '').split(/\s+/).filter((a: string) => a.startsWith('--'));
    expect(cmd).toEqual(['node', ...startFlags, pkg.main]);
    expect(pkg.scripts.start).toBe(['node', ...startFlags, pkg.main].join(' '));
    expect(pkg.main).toBe('dist/src/main.js');
  });
});

/** `.dockerignore` patterns as regular expressions (Go filepath.Match plus `**`). */
function ignorePatterns(): Array<{ re: RegExp; negate: boolean }> {
  return DOCKERIGNORE.split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const glob = path.posix.normalize((negate ? l.slice(1) : l).replace(/^\/+/, ''));
      const re = glob
        .split('')
        .map((ch, i, all) => {
          if (ch === '*') return all[i + 1] === '*' ? '' : all[i - 1] === '*' ? '.*' : '[^/]*';
          if (ch === '?') return '[^/]';
          return ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      return { re: new RegExp(`^${re}$`), negate };
    });
}

/** Whether the build context leaves `file` out (a parent directory's exclusion counts). */
function ignored(file: string): boolean {
  const parts = file.split('/');
  let out = false;
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    for (const p of ignorePatterns()) if (p.re.test(prefix)) out = !p.negate;
  }
  return out;
}

describe('.dockerignore', () => {
  test('keeps local state out of the build context', () => {
    for (const path of [
      'node_modules',
      'node_modules/x/index.js',
      'dist/src/main.js',
      'data/pg/base',
      '.git/HEAD',
      '.env',
    ])
      expect({ path, ignored: ignored(path) }).toEqual({ path, ignored: true });
  });

  test('keeps every file the Dockerfile copies from the context', () => {
    const fromContext = stages
      .flatMap((s) => only(s, 'COPY').map(copyParts))
      .filter((c) => !c.from)
      .flatMap((c) => c.sources);
    const files = fromContext.flatMap((src) => {
      const full = path.join(PROJECT_ROOT, src);
      try {
        return readdirSync(full, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => path.relative(PROJECT_ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
      } catch {
        return [src];
      }
    });
    expect(files).toEqual(
      expect.arrayContaining(['package-lock.json', 'config/default.yaml', 'schemas/config.json', 'src/main.ts']),
    );
    expect(files.filter(ignored)).toEqual([]);
  });
});
