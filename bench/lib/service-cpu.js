/**
 * CPU seconds used so far by every Redis and PostgreSQL process on this machine (Linux /proc):
 * on a two-core machine their work competes with the gateway's, so a change that saves the
 * gateway CPU by moving it into Redis or Postgres shows here.
 */
'use strict';
const { readdirSync, readFileSync } = require('node:fs');

function serviceCpuSeconds() {
  const out = { redis: 0, postgres: 0 };
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
    if (name.startsWith('redis')) out.redis += seconds;
    else if (name.startsWith('postgres')) out.postgres += seconds;
  }
  return out;
}

module.exports = { serviceCpuSeconds };
