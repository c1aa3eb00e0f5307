/**
 * Summaries of the profiles `window-probe.js` writes: where a CPU profile's samples fall (self
 * time per function and per file or package, idle excluded from the shares) and what an
 * allocation profile allocates per request (self size per function).
 */
'use strict';

/** `…/node_modules/undici/lib/x.js` → `undici/lib/x.js`, `…/dist/src/a/b.js` → `src/a/b.js`. */
function shortUrl(url) {
  const at = url.lastIndexOf('node_modules/');
  if (at !== -1) return url.slice(at + 'node_modules/'.length);
  if (url.startsWith('wasm://')) return 'wasm';
  return url.replace(/^file:\/\//, '').replace(/.*\/dist\//, '');
}

/** `function file:line` for a call frame. */
function frameKey(frame) {
  return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
}

/** The package (`undici`, `@scope/name`) or our source file a frame belongs to; builtins as named. */
function unitOf(frame) {
  const url = shortUrl(frame.url);
  if (!url) return frame.functionName || '(native)';
  if (url.startsWith('src/') || url.startsWith('node:')) return url;
  return url
    .split('/')
    .slice(0, url.startsWith('@') ? 2 : 1)
    .join('/');
}

function top(map, total, n, unit) {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${unit(v, total).padStart(8)}  ${k}`)
    .join('\n');
}

/** Self time (µs) by function and by file or package, and the busy and idle totals, of a CPU profile. */
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const fn = new Map();
  const unit = new Map();
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') {
      idle += dt;
      return;
    }
    busy += dt;
    const key = frameKey(frame);
    fn.set(key, (fn.get(key) ?? 0) + dt);
    const u = unitOf(frame);
    unit.set(u, (unit.get(u) ?? 0) + dt);
  });
  return { busy, idle, fn, unit };
}

/** Self time by function and by file/package, as % of the non-idle samples. */
function summariseCpu(profile, n = 30) {
  const { busy, idle, fn, unit } = selfTimes(profile);
  const pct = (v, total) => `${((100 * v) / total).toFixed(1)} %`;
  return [
    `busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s; shares of busy time`,
    '-- by file or package',
    top(unit, busy, n, pct),
    '-- by function (self time)',
    top(fn, busy, n, pct),
  ].join('\n');
}

/**
 * Inclusive time of the gateway's own functions (frames under `dist/src/`), as shares of the busy
 * time: each sample counts once for every distinct such function on its stack, which is what
 * tells one step of the pipeline from another.
 */
function inclusiveOwn(profile, n = 30) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const totals = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    if (byId.get(id).callFrame.functionName === '(idle)') return;
    busy += dt;
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at).callFrame;
      if (!shortUrl(frame.url).startsWith('src/')) continue;
      const key = frameKey(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      totals.set(key, (totals.get(key) ?? 0) + dt);
    }
  });
  const pct = (v, total) => `${((100 * v) / total).toFixed(1)} %`;
  return ["-- the gateway's own functions, inclusive (share of busy time)", top(totals, busy, n, pct)].join('\n');
}

/**
 * Several targets' profiles side by side: each file's or package's self time per request (µs),
 * with the busy total, sorted by how much more the last column spends than the first (for the
 * ladder: the full gateway over the floor), so the rows say where a gateway's time over the floor
 * goes. A sampled profile counts the time the thread was busy, so on a saturated machine a row
 * also holds the time the thread waited for a core inside it (a socket write that woke another
 * process, for one).
 * @param {Array<{name: string, profile: object, requests: number}>} columns
 */
function compareUnits(columns, n = 40) {
  const per = columns.map(({ profile, requests }) => {
    const { busy, unit } = selfTimes(profile);
    return { busy: busy / requests, unit: new Map([...unit].map(([k, v]) => [k, v / requests])) };
  });
  const first = per[0];
  const last = per[per.length - 1];
  const keys = [...new Set(per.flatMap((p) => [...p.unit.keys()]))];
  const us = (p, k) => p.unit.get(k) ?? 0;
  keys.sort((a, b) => us(last, b) - us(first, b) - (us(last, a) - us(first, a)));
  const cell = (v) => v.toFixed(1).padStart(10);
  return [
    `${'self time, µs per request'.padEnd(27)}${columns.map((c) => c.name.padStart(10)).join('')}  file or package (by ${columns[columns.length - 1].name} − ${columns[0].name})`,
    `${'busy'.padEnd(27)}${per.map((p) => cell(p.busy)).join('')}`,
    ...keys.slice(0, n).map((k) => `${' '.repeat(27)}${per.map((p) => cell(us(p, k))).join('')}  ${k}`),
  ].join('\n');
}

/**
 * What a sample was doing, for {@link longTasks}: the outermost frame of our code (`src/…`), else
 * the outermost package frame, else the sampled frame itself (`(garbage collector)`, `(program)`).
 */
function culprit(node, parentOf) {
  let ours = null;
  let pkg = null;
  for (let n = node; n; n = parentOf.get(n.id)) {
    const url = shortUrl(n.callFrame.url);
    if (url.startsWith('src/')) ours = n;
    else if (url && !url.startsWith('node:') && url !== 'wasm') pkg = n;
  }
  const at = ours ?? pkg;
  return at ? `${at.callFrame.functionName || '(anonymous)'} ${unitOf(at.callFrame)}` : node.callFrame.functionName;
}

/** A gap between two samples of at least this many µs (5× the 200 µs interval) is a stall, not work. */
const STALL_US = 1000;

/**
 * The event loop's long busy stretches (runs of non-idle samples of at least `minMs`), which are
 * what a steady load's tail latency waits behind: how many, how long in all, and what each was
 * mostly doing (by {@link culprit}). A stretch's time also holds the gaps between its samples;
 * a gap of {@link STALL_US} or more means the thread was not running at all (descheduled by the
 * kernel or the host), so such gaps are counted apart ("stalled"): time no change to the code
 * can take back.
 */
function longTasks(profile, minMs = 1, n = 15) {
  const ms = (us) => (us / 1000).toFixed(0);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const stretches = [];
  let current = null;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(id);
    if (node.callFrame.functionName === '(idle)') {
      if (current) stretches.push(current);
      current = null;
      return;
    }
    current ??= { us: 0, stalledUs: 0, by: new Map() };
    current.us += dt;
    if (dt >= STALL_US) current.stalledUs += dt;
    const key = culprit(node, parentOf);
    current.by.set(key, (current.by.get(key) ?? 0) + dt);
  });
  if (current) stretches.push(current);
  const long = stretches.filter((s) => s.us >= minMs * 1000);
  const byCulprit = new Map();
  for (const s of long) {
    const [main] = [...s.by].sort((a, b) => b[1] - a[1])[0];
    const agg = byCulprit.get(main) ?? { count: 0, us: 0, stalledUs: 0, max: 0 };
    agg.count += 1;
    agg.us += s.us;
    agg.stalledUs += s.stalledUs;
    agg.max = Math.max(agg.max, s.us);
    byCulprit.set(main, agg);
  }
  const seconds = profile.samples.length ? (profile.endTime - profile.startTime) / 1e6 : 0;
  const rows = [...byCulprit]
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, n)
    .map(
      ([k, a]) =>
        `${String(a.count).padStart(6)} ${ms(a.us).padStart(7)} ms ${ms(a.stalledUs).padStart(7)} ms ${(a.max / 1000).toFixed(1).padStart(6)} ms  ${k}`,
    );
  const stalled = long.filter((s) => s.stalledUs > 0);
  return [
    `busy stretches of ${minMs} ms or more: ${long.length} in ${seconds.toFixed(1)} s (${ms(long.reduce((t, s) => t + s.us, 0))} ms), by what most of each was doing`,
    `  ${stalled.length} of them hold a gap of ${STALL_US / 1000} ms or more between samples (the thread was not running): ${ms(stalled.reduce((t, s) => t + s.stalledUs, 0))} ms stalled`,
    ' count   total ms  stalled   longest  mostly',
    ...rows,
  ].join('\n');
}

/** Bytes allocated (sampled) per request, by function. */
function summariseHeap(profile, requests, n = 30) {
  const fn = new Map();
  let total = 0;
  const walk = (node) => {
    const key = frameKey(node.callFrame);
    fn.set(key, (fn.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const perRequest = (v) => `${(v / 1024 / requests).toFixed(2)} kB`;
  return [
    `${(total / 1024 / requests).toFixed(1)} kB allocated per request (sampled)`,
    top(fn, total, n, perRequest),
  ].join('\n');
}

module.exports = { summariseCpu, summariseHeap, longTasks, compareUnits, inclusiveOwn };
