/**
 * How the gateway reaches Redis: one server by URL, a Redis Cluster from seed nodes, or the
 * primary a set of Sentinels names. The choice is plain data (it is copied to the usage writer
 * thread, which opens its own connection), and one factory builds the matching ioredis client
 * with the gateway's fail-fast settings, for commands and for the pub/sub subscriber alike.
 * @module
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Config } from '../config';

/** A command client of either kind; both speak the same commands (keys routed by slot on a Cluster). */
export type RedisClient = Redis | Cluster;

/** Where Redis is; exactly one of `url`, `cluster`, `sentinel`. */
export interface RedisTopology {
  /** Standalone server (`redis://` or `rediss://`, credentials and db in the URL). */
  url?: string;
  /** Redis Cluster seed nodes (`host:port`); the rest of the cluster is discovered from them. */
  cluster?: { nodes: string[] };
  /** Sentinels (`host:port`) and the name of the primary group they monitor. */
  sentinel?: { sentinels: string[]; name: string; password?: string };
  /** AUTH for cluster nodes or the Sentinel-managed primary. */
  password?: string;
  /** TLS to cluster nodes or the Sentinel-managed primary. */
  tls?: boolean;
}

/** Client behaviour the gateway needs beyond where Redis is. */
export interface ClientSettings {
  commandTimeoutMs: number;
  /** The pub/sub subscriber: queues SUBSCRIBE until connected, never times out, retries forever. */
  subscriber?: boolean;
}

/** `host:port` (or `[v6]:port`) → ioredis's `{ host, port }`. */
export function parseHostPort(value: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(value);
  const port = Number(m?.[2]);
  if (!m || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`bad Redis address "${value}": expected host:port`);
  return { host: m[1] as string, port };
}

/** The topology the config names, or null when no Redis is configured (embedded stores). */
export function topologyFromConfig(redis: Config['redis']): RedisTopology | null {
  const auth = { ...(redis.password ? { password: redis.password } : {}), ...(redis.tls ? { tls: true } : {}) };
  if (redis.clusterNodes.length > 0) return { cluster: { nodes: [...redis.clusterNodes] }, ...auth };
  if (redis.sentinels.length > 0 && redis.sentinelName) {
    const password = redis.sentinelPassword ? { password: redis.sentinelPassword } : {};
    return { sentinel: { sentinels: [...redis.sentinels], name: redis.sentinelName, ...password }, ...auth };
  }
  return redis.url ? { url: redis.url } : null;
}

/**
 * Per-connection options: commands fail fast while Redis is unreachable (no offline queue) or
 * slow (`commandTimeout`), so callers apply their fail-open/closed policy instead of hanging.
 */
function connectionOptions(t: RedisTopology, s: ClientSettings): RedisOptions {
  const base: RedisOptions = s.subscriber
    ? { enableOfflineQueue: true, maxRetriesPerRequest: null }
    : { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: s.commandTimeoutMs };
  return {
    ...base,
    lazyConnect: true,
    connectTimeout: Math.max(1000, s.commandTimeoutMs),
    retryStrategy: (times) => Math.min(times * 200, 2000),
    // How long close() lets a socket end gracefully before destroying it (ioredis: 2 s). A
    // healthy Redis closes at once; a dead or half-open socket would hold shutdown that long.
    disconnectTimeout: 500,
    ...(t.password ? { password: t.password } : {}),
    ...(t.tls ? { tls: {} } : {}),
  };
}

/** Build (without connecting) the ioredis client for `t`. */
export function createRedisClient(t: RedisTopology, s: ClientSettings): RedisClient {
  const options = connectionOptions(t, s);
  if (t.cluster) {
    // ioredis manages the node connections itself (offline queue on, reconnects by refreshing
    // the slot map); the cluster-level queue and retry strategy are what fail fast here.
    const { commandTimeout, maxRetriesPerRequest, connectTimeout, disconnectTimeout, password, tls } = options;
    const clusterOptions: ClusterOptions = {
      lazyConnect: true,
      enableOfflineQueue: options.enableOfflineQueue,
      enableAutoPipelining: !s.subscriber,
      clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
      // A moved slot or failover is followed this many times before the command fails.
      maxRedirections: 4,
      redisOptions: { commandTimeout, maxRetriesPerRequest, connectTimeout, disconnectTimeout, password, tls },
    };
    return new Cluster(t.cluster.nodes.map(parseHostPort), clusterOptions);
  }
  if (t.sentinel) {
    return new Redis({
      ...options,
      enableAutoPipelining: !s.subscriber,
      sentinels: t.sentinel.sentinels.map(parseHostPort),
      name: t.sentinel.name,
      ...(t.sentinel.password ? { sentinelPassword: t.sentinel.password } : {}),
      ...(t.tls ? { enableTLSForSentinelMode: true } : {}),
    });
  }
  if (!t.url) throw new Error('Redis topology names no url, cluster or sentinels');
  return new Redis(t.url, { ...options, enableAutoPipelining: !s.subscriber });
}
