/**
 * Redis topology settings: REDIS_CLUSTER_NODES / REDIS_SENTINELS (comma lists) and their
 * companions parse and validate, only one way to reach Redis may be set, and the factory builds
 * the matching ioredis client (Cluster, Sentinel-backed, standalone) without connecting.
 */
import { Cluster, Redis } from 'ioredis';
import { ConfigError, ENV_VARS, loadConfig } from '../../src/config';
import { createRedisClient, parseHostPort, topologyFromConfig } from '../../src/kv/redis-topology';

const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

describe('Redis topology config', () => {
  test('every new setting has its environment variable', () => {
    const names = ENV_VARS.map((v) => v.name);
    for (const n of [
      'REDIS_CLUSTER_NODES',
      'REDIS_SENTINELS',
      'REDIS_SENTINEL_NAME',
      'REDIS_PASSWORD',
      'REDIS_SENTINEL_PASSWORD',
      'REDIS_TLS',
    ]) {
      expect(names).toContain(n);
    }
  });

  test('defaults: no cluster, no sentinels → standalone URL or embedded', () => {
    const c = loadConfig({});
    expect(c.redis).toMatchObject({ clusterNodes: [], sentinels: [], sentinelName: null, password: null, tls: false });
    expect(topologyFromConfig(c.redis)).toBeNull();
    expect(topologyFromConfig(loadConfig({ REDIS_URL: 'redis://h:6379' }).redis)).toEqual({ url: 'redis://h:6379' });
  });

  test('REDIS_CLUSTER_NODES is a comma list of host:port; password and TLS go with it', () => {
    const c = loadConfig({
      REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-b:7001,,[::1]:7002 ',
      REDIS_PASSWORD: 's3cret',
      REDIS_TLS: 'true',
    });
    expect(c.redis.clusterNodes).toEqual(['10.0.0.1:7000', 'redis-b:7001', '[::1]:7002']);
    expect(topologyFromConfig(c.redis)).toEqual({
      cluster: { nodes: c.redis.clusterNodes },
      password: 's3cret',
      tls: true,
    });
  });

  test('REDIS_SENTINELS needs REDIS_SENTINEL_NAME', () => {
    expect(problemsOf({ REDIS_SENTINELS: 's1:26379' }).join('\n')).toMatch(/REDIS_SENTINEL_NAME\) is required/);
    const c = loadConfig({
      REDIS_SENTINELS: 's1:26379,s2:26379',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'sp',
    });
    expect(topologyFromConfig(c.redis)).toEqual({
      sentinel: { sentinels: ['s1:26379', 's2:26379'], name: 'mymaster', password: 'sp' },
    });
  });

  test('only one way to reach Redis, and malformed addresses are refused with the variable named', () => {
    const both = problemsOf({ REDIS_URL: 'redis://h:6379', REDIS_CLUSTER_NODES: 'h:7000' }).join('\n');
    expect(both).toMatch(/set only one of .*REDIS_URL.*REDIS_CLUSTER_NODES/);
    const bad = problemsOf({ REDIS_CLUSTER_NODES: 'h:7000,nohost' }).join('\n');
    expect(bad).toMatch(/config\.redis\.clusterNodes/);
    expect(problemsOf({ REDIS_SENTINELS: 'a b:1', REDIS_SENTINEL_NAME: 'm' }).join('\n')).toMatch(
      /config\.redis\.sentinels/,
    );
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'h:7000', REDIS_KEY_PREFIX: '{sy}:' }).join('\n')).toMatch(
      /REDIS_KEY_PREFIX\) must not contain \{ or \}/,
    );
    expect(problemsOf({ REDIS_URL: 'redis://h:6379', REDIS_KEY_PREFIX: '{sy}:' })).toEqual([]);
  });

  test('parseHostPort', () => {
    expect(parseHostPort('127.0.0.1:7000')).toEqual({ host: '127.0.0.1', port: 7000 });
    expect(parseHostPort('[::1]:7000')).toEqual({ host: '::1', port: 7000 });
    expect(() => parseHostPort('h:0')).toThrow(/bad Redis address/);
    expect(() => parseHostPort('h')).toThrow(/bad Redis address/);
  });
});

describe('createRedisClient', () => {
  test('cluster nodes → an ioredis Cluster with fail-fast options and node AUTH', () => {
    const client = createRedisClient(
      { cluster: { nodes: ['127.0.0.1:7000', 'h:7001'] }, password: 'pw' },
      { commandTimeoutMs: 250 },
    );
    try {
      expect(client).toBeInstanceOf(Cluster);
      const { options } = client as Cluster;
      expect(options.enableOfflineQueue).toBe(false);
      expect(options.lazyConnect).toBe(true);
      expect(options.redisOptions).toMatchObject({ commandTimeout: 250, password: 'pw', maxRetriesPerRequest: 1 });
    } finally {
      client.disconnect();
    }
  });

  test('sentinels → a Redis client that asks the sentinels for the named primary', () => {
    const client = createRedisClient(
      { sentinel: { sentinels: ['s1:26379', 's2:26380'], name: 'mymaster', password: 'sp' }, password: 'pw' },
      { commandTimeoutMs: 250 },
    );
    try {
      expect(client).toBeInstanceOf(Redis);
      const { options } = client as Redis;
      expect(options.sentinels).toEqual([
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ]);
      expect(options).toMatchObject({
        name: 'mymaster',
        sentinelPassword: 'sp',
        password: 'pw',
        commandTimeout: 250,
        enableOfflineQueue: false,
      });
    } finally {
      client.disconnect();
    }
  });

  test('the subscriber variant queues until connected and never times out', () => {
    const client = createRedisClient(
      { url: 'redis://127.0.0.1:1' },
      { commandTimeoutMs: 250, subscriber: true },
    ) as Redis;
    try {
      expect(client.options).toMatchObject({ enableOfflineQueue: true, maxRetriesPerRequest: null });
      expect(client.options.commandTimeout).toBeUndefined();
    } finally {
      client.disconnect();
    }
  });
});
