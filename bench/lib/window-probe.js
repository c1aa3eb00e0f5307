/**
 * Preloaded into the gateway by `bench/profile.js` (`node -r`): the first SIGUSR2 starts a V8 CPU
 * profile (or, with PROBE_HEAP=1, allocation sampling; with PROBE_HEAP=promoted, sampling of only
 * the allocations that outlived a scavenge) and counts garbage collections; the second stops both
 * and writes them to PROBE_OUT (`<out>.cpuprofile` or `<out>.heapprofile`, and `<out>.gc.json`).
 * It also samples the process's memory every 100 ms over the window and writes the peak of each part
 * (`<out>.memory.json`): RSS, the main thread's V8 heap, and the ArrayBuffers (Buffers) outside it.
 * So the profile covers the measured load window only, not start-up and warm-up, which
 * `--cpu-prof` includes. Benchmark tooling; never loaded by the gateway itself.
 */
'use strict';
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { setInterval, clearInterval } = require('node:timers');
const { PerformanceObserver, constants } = require('node:perf_hooks');

const OUT = process.env.PROBE_OUT;
/** Sample only objects that outlived a scavenge (promoted to the old generation): what full collections must trace. */
const PROMOTED = process.env.PROBE_HEAP === 'promoted';
const HEAP = PROMOTED || process.env.PROBE_HEAP === '1';
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak_callbacks',
};

let session = null;
let gc = null;
/** Peaks (bytes) of the memory parts over the window, and the sampling timer. */
let memory = null;
let sampler = null;

function sampleMemory() {
  const m = process.memoryUsage();
  const parts = {
    rss: m.rss,
    heapTotal: m.heapTotal,
    heapUsed: m.heapUsed,
    arrayBuffers: m.arrayBuffers,
    external: m.external,
  };
  for (const [k, v] of Object.entries(parts)) memory[k] = Math.max(memory[k] ?? 0, v);
}
new PerformanceObserver((list) => {
  if (!gc) return;
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail.kind] ?? String(entry.detail.kind);
    const s = (gc[kind] ??= { count: 0, ms: 0 });
    s.count += 1;
    s.ms += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

function start() {
  gc = {};
  memory = {};
  sampler = setInterval(sampleMemory, 100);
  session = new inspector.Session();
  session.connect();
  if (HEAP) {
    session.post('HeapProfiler.enable', () =>
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !PROMOTED,
      }),
    );
  } else {
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')),
    );
  }
}

function stop() {
  clearInterval(sampler);
  writeFileSync(`${OUT}.memory.json`, JSON.stringify(memory));
  const s = session;
  session = null;
  const done = (err, result) => {
    if (!err) writeFileSync(`${OUT}.${HEAP ? 'heapprofile' : 'cpuprofile'}`, JSON.stringify(result.profile));
    writeFileSync(`${OUT}.gc.json`, JSON.stringify(gc));
    gc = null;
    s.disconnect();
  };
  if (HEAP) s.post('HeapProfiler.stopSampling', done);
  else s.post('Profiler.stop', done);
}

if (OUT) process.on('SIGUSR2', () => (session ? stop() : start()));
