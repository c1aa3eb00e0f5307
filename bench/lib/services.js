/**
 * `services` mode of the benchmark: a throw-away Postgres database and a unique Redis key
 * prefix, removed afterwards.
 */
'use strict';
const { URL } = require('node:url');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { Redis } = require('ioredis');

async function prepareServices() {
  const adminUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const id = randomBytes(4).toString('hex');
  const dbName = `switchyard_bench_${id}`;
  const prefix = `bench:${id}:`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  return {
    env: { DATABASE_URL: url.toString(), REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix },
    async cleanup() {
      const a = new Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await a.end();
      const redis = new Redis(redisUrl);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
      redis.disconnect();
    },
  };
}

module.exports = { prepareServices };
