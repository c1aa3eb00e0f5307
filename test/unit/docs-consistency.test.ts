/**
 * Docs that cannot drift from the tree: every relative link and every repository path that
 * README.md, docs/ and k8s/ mention exists, every default a documentation table quotes for a
 * setting equals what the configuration loads with no environment, README's configuration table
 * lists exactly the variables the gateway reads, and no doc tells an operator to set a retired one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ENV_VARS, RETIRED_ENV_VARS, loadConfig } from '../../src/config';

const ROOT = path.join(__dirname, '..', '..');

function filesUnder(dir: string, ext: RegExp): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...filesUnder(rel, ext));
    else if (ext.test(name)) out.push(rel);
  }
  return out;
}

const DOCS = ['README.md', ...filesUnder('docs', /\.md$/), ...filesUnder('k8s', /\.(md|ya?ml)$/), 'bench/README.md'];
const text = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Markdown link targets that point into the repository (no scheme, not a bare anchor). */
function relativeLinks(body: string): string[] {
  return [...body.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^([a-z]+:|#)/i.test(t));
}

/** Repository paths named in prose, code spans or comments (`src/x.ts`, `docs/y.md`, ...). */
function mentionedPaths(body: string): string[] {
  const re =
    /(?<![\w/.-])((?:docs|k8s|src|config|schemas|bench|test|dashboard|scripts)\/[\w./-]*\.(?:md|ts|tsx|js|mjs|ya?ml|json|sql|png))(?![\w/-])/g;
  return [...body.matchAll(re)].map((m) => m[1]!);
}

describe('links and paths in README.md, docs/ and k8s/', () => {
  test.each(DOCS)('%s: every relative link resolves', (file) => {
    const missing = relativeLinks(text(file))
      .map((target) => decodeURI(target.split('#')[0]!))
      .filter((target) => target !== '' && !existsSync(path.resolve(ROOT, path.dirname(file), target)));
    expect(missing).toEqual([]);
  });

  test.each(DOCS)('%s: every repository path it names exists', (file) => {
    // A path is written from the repository root, from the file's own folder, or (for the
    // manifests' own files) from k8s/.
    const bases = [ROOT, path.join(ROOT, path.dirname(file)), path.join(ROOT, 'k8s')];
    const named = mentionedPaths(text(file)).filter((p) => !p.includes('NNN')); // NNN_name.sql: a pattern, not a file
    const missing = named.filter((p) => !bases.some((b) => existsSync(path.join(b, p))));
    expect([...new Set(missing)]).toEqual([]);
  });
});

/** One row of a documentation table that quotes a default. */
interface QuotedDefault {
  file: string;
  path: string;
  quoted: string;
}

const config = loadConfig({}) as unknown as Record<string, Record<string, unknown>>;
const byVariable = new Map([
  ...ENV_VARS.map((v): [string, string] => [v.name, v.path.join('.')]),
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'tracing.endpoint'],
]);

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
}
function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/** The rows of every table with a "Default" column whose setting can be named in the configuration. */
function quotedDefaults(file: string): QuotedDefault[] {
  const out: QuotedDefault[] = [];
  const lines = text(file).split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    const header = cells(lines[i]!);
    const at = header.indexOf('Default');
    if (!lines[i]!.startsWith('|') || at < 0 || !/^\|[-| :]+\|$/.test(lines[i + 1]!.trim())) continue;
    const section = /`(\w+)\.\*`/.exec(header[0]!)?.[1];
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) {
      const row = cells(lines[j]!);
      const names = row.slice(0, at).flatMap(codeSpans);
      const isSetting = (n: string) => /^\w+\.\w+$/.test(n) && n.split('.')[0]! in config;
      const paths = names.flatMap((n) =>
        byVariable.has(n)
          ? [byVariable.get(n)!]
          : isSetting(n)
            ? [n]
            : section && /^\w+$/.test(n)
              ? [`${section}.${n}`]
              : [],
      );
      // Several settings in one row quote their defaults in the same order ("`a`, `b`").
      const dedup = [...new Set(paths)];
      const quoted = row[at]!.split(/,\s*/).map((q) => q.replace(/\s*\(.*$/, '').trim());
      if (dedup.length === 0) continue;
      dedup.forEach((p, k) =>
        out.push({ file, path: p, quoted: quoted.length === dedup.length ? quoted[k]! : quoted[0]! }),
      );
    }
  }
  return out;
}

/** The value a quoted default stands for: `unset` is null, units are converted, code spans unwrapped. */
function meaning(quoted: string): unknown {
  const q = quoted.replace(/^`|`$/g, '');
  if (/^unset(:|$)/.test(q)) return null; // `unset`, or `unset: what that means`
  const unit = /^(\d+(?:\.\d+)?) (days?|MiB|h)$/.exec(q);
  if (unit)
    return Number(unit[1]) * { day: 86_400_000, days: 86_400_000, MiB: 1_048_576, h: 3_600_000 }[unit[2] as 'day'];
  if (/^-?\d+(\.\d+)?$/.test(q)) return Number(q);
  if (q === 'true' || q === 'false') return q === 'true';
  return q;
}

function configured(dotted: string): unknown {
  const [section, key] = dotted.split('.') as [string, string];
  const value = config[section]?.[key];
  return Array.isArray(value) && value.length === 0 ? null : value === '' ? null : value;
}

const QUOTED = [
  'README.md',
  'docs/operations.md',
  'docs/api.md',
  'docs/rankings.md',
  'docs/embeddings-cache.md',
].flatMap(quotedDefaults);

describe('defaults quoted in the docs', () => {
  test('the tables quote some defaults (the parser still finds them)', () => {
    expect(QUOTED.length).toBeGreaterThan(30);
  });

  test.each(QUOTED.map((q) => [`${q.file}: ${q.path} = ${q.quoted}`, q] as const))('%s', (_title, q) => {
    expect(config[q.path.split('.')[0]!]).toBeDefined();
    expect({ setting: q.path, value: configured(q.path) }).toEqual({
      setting: q.path,
      value: meaning(q.quoted) ?? null,
    });
  });
});

describe("README's configuration table", () => {
  const readme = text('README.md');
  const section = readme.slice(
    readme.indexOf('## Configuration\n'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration\n') + 1),
  );
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  const listed = new Set(rows.flatMap((row) => codeSpans(cells(row)[0]!)));

  test('lists every variable the gateway reads, and no other', () => {
    const read = [
      ...ENV_VARS.map((v) => v.name),
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'SWITCHYARD_CONFIG',
      '<SLUG>_BASE_URL',
      '<SLUG>_API_KEY',
      '<SLUG>_API_KEYS',
      '<SLUG>_API_VERSION',
      '<SLUG>_REGION',
      '<SLUG>_ENTRA_TOKEN',
      '<SLUG>_RESPONSES',
    ];
    expect([...listed].sort()).toEqual([...read].sort());
  });

  test('marks exactly the variables that accept <NAME>_FILE as secrets', () => {
    const marked = rows.flatMap((row) => [...cells(row)[0]!.matchAll(/`([^`]+)` \*\(secret\)\*/g)].map((m) => m[1]!));
    const secrets = ENV_VARS.filter((v) => v.secret).map((v) => v.name);
    expect(marked.filter((name) => !name.startsWith('<')).sort()).toEqual(secrets.sort());
  });

  test('quotes the default of every variable that has one', () => {
    const quotedInReadme = new Set(QUOTED.filter((q) => q.file === 'README.md').map((q) => q.path));
    expect(ENV_VARS.filter((v) => !quotedInReadme.has(v.path.join('.'))).map((v) => v.name)).toEqual([]);
  });
});

describe('retired variables', () => {
  test.each(DOCS)('%s does not name one (their settings are YAML-only now)', (file) => {
    const named = RETIRED_ENV_VARS.filter((v) => new RegExp(`\\b${v.name}\\b`).test(text(file))).map((v) => v.name);
    expect(named).toEqual([]);
  });
});
