/**
 * A Redis that stops answering (hung, or a network path that drops packets: the connection stays
 * open, nothing comes back) is caught by the command timeout (`redis.commandTimeoutMs`, ioredis's
 * own `commandTimeout`): the command fails with a clear error instead of hanging, the gateway
 * answers by its fail-open/fail-closed policy meanwhile, and once Redis answers again the same
 * connection serves commands as before.
 */
import request from 'supertest';
import { REDIS_URL, describeIf, deleteRedisPrefix, openTestPglite, uniqueId } from '../helpers/services';
import { tcpProxy, type TcpProxy } from '../../testkit/tcp-proxy';
import { createTestGateway } from '../helpers/gateway';
import { RedisKv } from '../../src/kv/redis';
import type { KvScript } from '../../src/kv/kv';
import type { Database } from '../../src/store/db';

const bearer = (secret: string) => `Bearer ${secret}`;

/** A trivial script (its in-process body is unused here). */
const echo: KvScript<string> = {
  name: 'echo',
  lua: 'return ARGV[1]',
  memory: (_data, _keys, args) => args[0],
  parse: (reply) => String(reply),
};

const settled = (p: Promise<unknown>) =>
  p.then(
    (v) => ({ ok: true as const, v }),
    (err: Error) => ({ ok: false as const, err: err.message }),
  );

describeIf(REDIS_URL)('Redis that stops answering', () => {
  let proxy: TcpProxy;
  let kv: RedisKv;
  let prefix: string;
  beforeEach(async () => {
    const target = new URL(REDIS_URL as string);
    proxy = await tcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.open();
    prefix = `t:${uniqueId()}:`;
    kv = await RedisKv.connect({ url: `redis://127.0.0.1:${proxy.port}`, prefix, commandTimeoutMs: 1000 });
    await kv.ping();
  });
  afterEach(async () => {
    proxy.resume();
    await kv.close();
    await proxy.close();
    await deleteRedisPrefix(prefix);
  });

  test('a command not answered within the timeout fails with "Command timed out"; answered again once Redis is back', async () => {
    expect(await kv.run(echo, [], ['before'])).toBe('before');
    proxy.pause();
    expect(await settled(kv.run(echo, [], ['stalled']))).toEqual({ ok: false, err: 'Command timed out' });
    expect(await settled(kv.ping())).toEqual({ ok: false, err: 'Command timed out' });
    // (Without the timeout both would wait for ever: Redis's answers are held until resume.)
    proxy.resume();
    // The replies held back arrive late and are matched to the commands that timed out; new
    // commands on the same connection get their own answers.
    expect(await kv.run(echo, [], ['after'])).toBe('after');
    await kv.connection.set(`${prefix}k`, 'v');
    expect(await kv.connection.get(`${prefix}k`)).toBe('v');
  });
});

describeIf(REDIS_URL)('the gateway while Redis stops answering', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestPglite();
  });
  afterAll(async () => {
    await db.close();
  });

  test.each([
    ['open', 200, 'degraded'],
    ['closed', 503, 'not_ready'],
  ] as const)(
    'rate limit fail %s: /readyz answers %i (%s) while Redis is stalled, ready once it answers again',
    async (failMode, stalledStatus, stalledState) => {
      const target = new URL(REDIS_URL as string);
      const proxy = await tcpProxy(target.hostname, Number(target.port || 6379));
      await proxy.open();
      const prefix = `t:${uniqueId()}:`;
      const kv = await RedisKv.connect({ url: `redis://127.0.0.1:${proxy.port}`, prefix, commandTimeoutMs: 1000 });
      try {
        const gw = await createTestGateway(db, kv, { rateLimit: { failMode } });
        const ready = () => request(gw.app).get('/readyz');
        const key = () => request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey));
        expect((await ready()).body.status).toBe('ready');
        proxy.pause();
        const stalled = await ready();
        expect(stalled.status).toBe(stalledStatus);
        expect(stalled.body).toMatchObject({
          status: stalledState,
          checks: { redis: { status: expect.not.stringMatching(/^ok$/) } },
        });
        // Requests that need only the database are still served.
        if (failMode === 'open') expect((await key()).status).toBe(200);
        proxy.resume();
        await kv.ping();
        expect((await ready()).body.status).toBe('ready');
        expect((await key()).status).toBe(200);
      } finally {
        proxy.resume();
        await kv.close();
        await proxy.close();
        await deleteRedisPrefix(prefix);
      }
    },
  );
});
