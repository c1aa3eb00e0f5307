/**
 * Child processes of the benchmark: start one, wait until it is ready, read its peak RSS from
 * /proc (VmHWM, the kernel's high-water mark), and stop it. Loopback only.
 */
'use strict';
const { setTimeout, clearTimeout } = require('node:timers');
const { fetch } = require('undici');
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const net = require('node:net');

/** `n` distinct free TCP ports on 127.0.0.1: all are held open until each is known, so none is handed out twice. */
async function freePorts(n) {
  const servers = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = net.createServer();
      servers.push(s);
      await new Promise((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((s) => s.address().port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(() => resolve()))));
  }
}

/**
 * The port a benchmark server (upstream.js, proxy.js, floor.js) announces on its `READY <port>`
 * line, else undefined: the `readyLine` of {@link startChild} for those servers.
 */
function readyPort(line) {
  return (/^READY (\d+)/.exec(line) || [])[1];
}

/**
 * Start `node <args>` with `env` added; resolve once `ready(line)` returns a value for a line of
 * its stdout (or after `readyUrl` answers). Output is kept (last lines) for error reports.
 */
function startChild(name, args, env, { readyLine, readyUrl, timeoutMs = 60_000 } = {}) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = [];
  const keep = (chunk) => {
    for (const line of chunk.toString().split('\n')) if (line) tail.push(line.slice(0, 500));
    while (tail.length > 20) tail.shift();
  };
  child.stderr.on('data', keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} not ready after ${timeoutMs} ms`)), timeoutMs);
    let done = false;
    function fail(err) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n--- ${name} output ---\n${tail.join('\n')}`));
    }
    function ok(value) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ name, child, value, tail });
    }
    child.stdout.on('data', (chunk) => {
      keep(chunk);
      if (readyLine) {
        for (const line of chunk.toString().split('\n')) {
          const v = readyLine(line);
          if (v !== undefined) ok(v);
        }
      }
    });
    child.once('exit', (code) => fail(new Error(`${name} exited early with ${code}`)));
    if (readyUrl) {
      const poll = async () => {
        while (!done) {
          try {
            const res = await fetch(readyUrl);
            if (res.ok) return ok(undefined);
          } catch {
            // not listening yet
          }
          await new Promise((r) => setTimeout(r, 200));
        }
      };
      poll();
    }
  });
}

/** Peak resident set size of a live process in MB (Linux /proc VmHWM), or null elsewhere. */
function peakRssMb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 102.4) / 10 : null;
  } catch {
    return null;
  }
}

/**
 * A live process's command name and the user and system CPU seconds it has used so far (Linux
 * /proc; null elsewhere or once it has exited); with `tid`, those of that one thread (`pid`'s own
 * is its main thread).
 */
function procStat(pid, tid) {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ", field 3 is state; utime and stime are fields 14 and 15 (1-based) of the whole line.
    return {
      name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      user: Number(fields[11]) / 100,
      system: Number(fields[12]) / 100,
    };
  } catch {
    return null;
  }
}

/** User and system CPU seconds a live process (or with `tid`, one of its threads) has used so far (null elsewhere). */
function cpuTimes(pid, tid) {
  const s = procStat(pid, tid);
  return s === null ? null : { user: s.user, system: s.system };
}

/**
 * CPU seconds (user + system) a live process has used so far (Linux /proc; null elsewhere).
 * Divided by the requests served it gives CPU per request, which the other engineers' load on a
 * shared machine distorts far less than requests/s.
 */
function cpuSeconds(pid) {
  const t = cpuTimes(pid);
  return t === null ? null : t.user + t.system;
}

/** SIGTERM, then SIGKILL if it has not exited within `killAfterMs` (5 s). */
function stopChild(handle, killAfterMs = 5000) {
  const { child } = handle;
  if (child.exitCode !== null) return Promise.resolve();
  child.removeAllListeners('exit');
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

module.exports = { freePorts, readyPort, startChild, peakRssMb, procStat, cpuTimes, cpuSeconds, stopChild };
