/**
 * `npm run bench:language-type`: the `language_type` line test (src/datasets/classify/language.ts)
 * on text it was not written against. It cuts chunks of 1 to 40 lines from files on this machine
 * (Debian's and Node's own: Python's standard library, C headers, Go, SQL, shell and Perl scripts,
 * JavaScript and TypeScript declarations from node_modules as `programming`; licence texts,
 * READMEs with their code blocks removed, Debian changelogs and Python's text files as
 * `natural`), with a fixed seed, and prints the accuracy per source. A code chunk made of comments
 * only is left out: it is prose in a code file, and either label would be defensible.
 * Settings: SEED (12345), PER_LABEL (320 chunks each). Expects a build (the script makes one).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { detectLanguageType } = require('../dist/src/datasets/classify/language');

let seed = Number(process.env.SEED || 12345);
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const PER_LABEL = Number(process.env.PER_LABEL || 320);
const NODE_MODULES = path.join(__dirname, '..', 'node_modules');
const PYTHON = process.env.PYTHON_LIB || findPythonLib();

function findPythonLib() {
  const roots = ['/usr/lib', path.join(process.env.HOME || '/root', '.pyenv/versions')];
  for (const root of roots) {
    for (const hit of walk(root, (p) => /python3\.\d+\/os\.py$/.test(p), 3)) return path.dirname(hit);
  }
  return '/usr/lib/python3';
}

function walk(dir, test, maxDepth = 8, out = [], depth = 0) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && depth < maxDepth && !e.isSymbolicLink()) walk(p, test, maxDepth, out, depth + 1);
    else if (e.isFile() && test(p)) out.push(p);
  }
  return out;
}

function read(p) {
  try {
    const bytes = fs.readFileSync(p);
    return (p.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes).toString('utf8');
  } catch {
    return '';
  }
}

const withoutCode = (md) =>
  md
    .replace(/```[\s\S]*?```/g, '')
    .replace(/^( {4}|\t).*$/gm, '')
    .replace(/<[^>]+>/g, '');
const COMMENT_ONLY = /^\s*(#(?!include|define|if|endif|else|pragma|undef)|\/\/|--|\*|\/\*|;|""")/;

const SOURCES = {
  programming: {
    python: walk(PYTHON, (p) => p.endsWith('.py') && !p.includes('site-packages')),
    c: walk('/usr/include', (p) => p.endsWith('.h')),
    go: walk('/usr/share/doc', (p) => p.endsWith('.go')),
    sql: walk('/usr/share', (p) => p.endsWith('.sql'), 3),
    js: walk(NODE_MODULES, (p) => p.endsWith('.js') && !p.endsWith('.min.js') && !p.includes('/dist/')),
    ts: walk(NODE_MODULES, (p) => p.endsWith('.d.ts')),
    shell: walk('/usr/share/doc', (p) => p.endsWith('.sh')).concat(walk('/etc', (p) => p.endsWith('.sh'))),
    perl: walk('/usr/share/perl5', (p) => p.endsWith('.pm')),
  },
  natural: {
    licences: walk('/usr/share/common-licenses', () => true),
    debian_readmes: walk('/usr/share/doc', (p) => /README(\.Debian)?(\.gz)?$/.test(p)),
    markdown_readmes: walk(NODE_MODULES, (p) => /\/README\.md$/i.test(p)),
    changelogs: walk('/usr/share/doc', (p) => /\/changelog\.Debian\.gz$/.test(p)),
    python_texts: walk(PYTHON, (p) => p.endsWith('.txt') && !p.includes('site-packages')),
  },
};

/** Up to `count` chunks of one source's files. */
function chunks(label, source, files, count) {
  const out = [];
  for (let tries = 0; out.length < count && tries < count * 20; tries++) {
    let text = read(files[Math.floor(random() * files.length)]);
    if (source === 'markdown_readmes') text = withoutCode(text);
    const lines = text.split('\n').filter((l) => l.length <= 300);
    if (lines.length < 3) continue;
    const n = [1, 2, 3, 5, 8, 12, 20, 40][Math.floor(random() * 8)];
    const start = Math.floor(random() * Math.max(1, lines.length - n));
    const chunk = lines
      .slice(start, start + n)
      .join('\n')
      .trim()
      .slice(0, 8000);
    if (chunk.replace(/\W/g, '').length < 20) continue;
    if (
      label === 'programming' &&
      chunk
        .split('\n')
        .filter((l) => l.trim() !== '')
        .every((l) => COMMENT_ONLY.test(l))
    )
      continue;
    out.push(chunk);
  }
  return out;
}

let right = 0;
let total = 0;
for (const [label, sources] of Object.entries(SOURCES)) {
  const present = Object.entries(sources).filter(([, files]) => files.length > 0);
  const per = Math.ceil(PER_LABEL / Math.max(1, present.length));
  for (const [source, files] of present) {
    const texts = chunks(label, source, files, per);
    const ok = texts.filter((t) => detectLanguageType(t) === label).length;
    right += ok;
    total += texts.length;
    console.log(`${label.padEnd(12)} ${source.padEnd(17)} ${String(ok).padStart(3)} / ${texts.length}`);
  }
  for (const [source] of Object.entries(sources).filter(([, files]) => files.length === 0))
    console.log(`${label.padEnd(12)} ${source.padEnd(17)} (no files on this machine)`);
}
console.log(
  `language_type accuracy (seed ${process.env.SEED || 12345}): ${right} / ${total} = ${((100 * right) / Math.max(1, total)).toFixed(1)} %`,
);
