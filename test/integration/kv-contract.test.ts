/**
 * The Kv contract, run against the in-process twin and real Redis alike: atomic scripts with
 * prefixed keys and expiry, script reload after a flush, reply checking, pub/sub between two
 * handles on the same prefix (and isolation between prefixes). The rate-limit store has its own
 * contract (rate-limit-store.test.ts).
 */
import { Redis } from 'ioredis';
import { KVS, REDIS_URL, describeIf, uniqueId } from '../helpers/services';
import type { Kv, KvScript } from '../../src/kv/kv';
import { RedisKv } from '../../src/kv/redis';
import { eventually, until } from '../helpers/eventually';

/** Increment a counter, setting its expiry on creation; returns [count, pttl]. */
const counter: KvScript<{ count: number; ttlMs: number }> = {
  name: 'test_counter',
  lua: `local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {n, redis.call('PTTL', KEYS[1])}`,
  memory(data, keys, args) {
    const key = keys[0] as string;
    const n = data.incrBy(key, Number(args[0]));
    if (n === Number(args[0])) data.pexpire(key, Number(args[1]));
    return [n, data.pttl(key)];
  },
  parse(reply) {
    if (!Array.isArray(reply) || reply.length !== 2) throw new Error('test_counter: malformed reply');
    return { count: Number(reply[0]), ttlMs: Number(reply[1]) };
  },
};

const broken: KvScript<number> = {
  name: 'test_broken',
  lua: `return 'not a number'`,
  memory: () => 'not a number',
  parse(reply) {
    if (typeof reply !== 'number') throw new Error('test_broken: malformed reply');
    return reply;
  },
};

/**
 * Subscribe to `channel`; resolves once the subscription is in place, with the next message
 * heard on it (rejected after `timeoutMs` without one). No waiting "until SUBSCRIBE reached
 * Redis": `subscribe` resolves on its confirmation.
 */
async function nextMessage(kv: Kv, channel: string, timeoutMs = 2000): Promise<{ received: Promise<string> }> {
  let heard!: (m: string) => void;
  const message = new Promise<string>((resolve) => (heard = resolve));
  await kv.subscribe(channel, (m) => heard(m));
  const received = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message on ${channel} within ${timeoutMs} ms`)), timeoutMs);
    void message.then((m) => {
      clearTimeout(timer);
      resolve(m);
    });
  });
  return { received };
}

describe.each(KVS)('Kv contract: $name', (kind) => {
  let kv: Kv;
  let prefix: string;
  beforeEach(async () => {
    prefix = `t:${uniqueId()}:`;
    kv = await kind.open(prefix);
  });
  afterEach(() => kv.close());

  test('ping succeeds', async () => {
    await expect(kv.ping()).resolves.toBeUndefined();
  });

  test('scripts run atomically with prefixed keys and expiry', async () => {
    expect(await kv.run(counter, ['c'], [2, 60000])).toEqual({ count: 2, ttlMs: expect.any(Number) });
    const second = await kv.run(counter, ['c'], [3, 60000]);
    expect(second.count).toBe(5);
    expect(second.ttlMs).toBeGreaterThan(50000);
    expect(second.ttlMs).toBeLessThanOrEqual(60000);
    expect((await kv.run(counter, ['other'], [1, 60000])).count).toBe(1);
  });

  test('concurrent script runs never lose an update', async () => {
    await Promise.all(Array.from({ length: 50 }, () => kv.run(counter, ['race'], [1, 60000])));
    expect((await kv.run(counter, ['race'], [0, 60000])).count).toBe(50);
  });

  test('keys expire', async () => {
    await kv.run(counter, ['short'], [1, 30]);
    await new Promise((r) => setTimeout(r, 80));
    expect((await kv.run(counter, ['short'], [1, 30])).count).toBe(1);
  });

  test('a malformed reply is rejected by the parser', async () => {
    await expect(kv.run(broken, [], [])).rejects.toThrow('malformed reply');
  });

  test('publish reaches subscribers on another handle with the same prefix, not other prefixes', async () => {
    const peer = kind.name === 'memory' ? kv : await kind.open(prefix);
    const stranger = await kind.open(`t:${uniqueId()}:`);
    try {
      const strangerGot: string[] = [];
      let sentinel!: () => void;
      const sentinelHeard = new Promise<void>((resolve) => (sentinel = resolve));
      await stranger.subscribe('ch', (m) => (m === 'sentinel' ? sentinel() : strangerGot.push(m)));
      const { received } = await nextMessage(peer, 'ch');
      await kv.publish('ch', 'hello');
      expect(await received).toBe('hello');
      // Published after 'hello' was delivered: had 'hello' reached the stranger, it would be there by now.
      await stranger.publish('ch', 'sentinel');
      await sentinelHeard;
      expect(strangerGot).toEqual([]);
    } finally {
      if (peer !== kv) await peer.close();
      await stranger.close();
    }
  });

  test('a message published as soon as subscribe has resolved is delivered, on every handle', async () => {
    const handles = kind.name === 'memory' ? [kv] : [kv, await kind.open(prefix), await kind.open(prefix)];
    try {
      for (const [i, handle] of handles.entries()) {
        const { received } = await nextMessage(handle, `at-once-${i}`);
        await kv.publish(`at-once-${i}`, `m${i}`);
        expect(await received).toBe(`m${i}`);
      }
    } finally {
      for (const handle of handles.slice(1)) await handle.close();
    }
  });
});

describeIf(REDIS_URL)('RedisKv specifics', () => {
  test('scripts are reloaded after SCRIPT FLUSH (NOSCRIPT)', async () => {
    const kv = await RedisKv.connect({ url: REDIS_URL, prefix: `t:${uniqueId()}:`, commandTimeoutMs: 2000 });
    const admin = new Redis(REDIS_URL as string);
    try {
      expect((await kv.run(counter, ['n'], [1, 60000])).count).toBe(1);
      await admin.script('FLUSH');
      expect((await kv.run(counter, ['n'], [1, 60000])).count).toBe(2);
    } finally {
      admin.disconnect();
      await kv.close();
    }
  });

  test('the commands of one event-loop turn (auto-pipelined) run in the order they were issued', async () => {
    const kv = await RedisKv.connect({ url: REDIS_URL, prefix: `t:${uniqueId()}:`, commandTimeoutMs: 2000 });
    try {
      const counts = await Promise.all(Array.from({ length: 20 }, () => kv.run(counter, ['n'], [1, 60000])));
      expect(counts.map((c) => c.count)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      for (let i = 21; i <= 23; i++) expect((await kv.run(counter, ['n'], [1, 60000])).count).toBe(i);
    } finally {
      await kv.close();
    }
  });

  test('commands fail fast when Redis is unreachable', async () => {
    const kv = await RedisKv.connect({ url: 'redis://127.0.0.1:1', prefix: 't:', commandTimeoutMs: 200 });
    try {
      const started = Date.now();
      await expect(kv.ping()).rejects.toThrow();
      await expect(kv.run(counter, ['x'], [1, 1000])).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await kv.close();
    }
  });

  test('close() of a handle whose Redis is unreachable leaves no timer behind after a second', async () => {
    // ioredis lets a closing socket end gracefully for disconnectTimeout (2 s by default) and a
    // dead one never does, so shutdown would wait that long; ours bounds it at 500 ms.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const kv = await RedisKv.connect({ url: 'redis://127.0.0.1:1', prefix: 't:', commandTimeoutMs: 200 });
    // Unconfirmed (Redis is unreachable): rejected after the bounded wait, its timer cleared.
    await expect(kv.subscribe('channel', () => undefined)).rejects.toThrow(
      'has not confirmed the subscription to channel within 1200 ms',
    );
    await expect(kv.ping()).rejects.toThrow();
    // Connections between retries: their sockets have closed, so ending them never completes. The
    // command connection's state is public: wait for it. The subscriber (private) had its first
    // attempt refused when subscribe() began, 1200 ms ago; whether it is between retries or in a
    // new attempt (which a close ends at once), it leaves no timer with the same bounded option.
    await until('the command connection between retries', () => kv.connection.status === 'reconnecting');
    await kv.close();
    await eventually(() => expect(timers()).toBeLessThanOrEqual(before), { timeoutMs: 1000 });
  });
});
