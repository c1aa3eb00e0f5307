/**
 * CPU seconds used so far by every Redis and PostgreSQL process on this machine (Linux /proc):
 * on a two-core machine their work competes with the gateway's, so a change that saves the
 * gateway CPU by moving it into Redis or Postgres shows here.
 */
'use strict';
const { readdirSync } = require('node:fs');
const { procStat } = require('./children');

function serviceCpuSeconds() {
  const out = { redis: 0, postgres: 0 };
  for (const pid of readdirSync('/proc')) {
    const s = /^\d+$/.test(pid) ? procStat(pid) : null;
    if (s === null) continue; // not a process, or exited meanwhile
    if (s.name.startsWith('redis')) out.redis += s.user + s.system;
    else if (s.name.startsWith('postgres')) out.postgres += s.user + s.system;
  }
  return out;
}

module.exports = { serviceCpuSeconds };
