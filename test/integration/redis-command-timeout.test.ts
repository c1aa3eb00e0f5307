/**
 * The Redis command timeout measures Redis, not the gateway's event loop (src/kv/command-timeout.ts):
 * a reply that arrived in time is read even when the loop was busy for longer than the timeout,
 * whether the busy stretch came before the command was written or while its reply was on the way;
 * a command Redis does not answer in time still fails with "Command timed out".
 */
import { REDIS_URL, describeIf, uniqueId } from '../helpers/services';
import { RedisKv } from '../../src/kv/redis';

/** Keep the event loop (and so every timer and socket read) busy for `ms`. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spinning on purpose: this is the overloaded gateway
  }
}

const settled = (p: Promise<unknown>) => p.then((v) => ({ ok: true as const, v }), (err: Error) => ({ ok: false as const, err: err.message }));

describeIf(REDIS_URL)('Redis command timeout', () => {
  let kv: RedisKv;
  let key: string;
  beforeEach(async () => {
    kv = await RedisKv.connect({ url: REDIS_URL as string, prefix: `t:${uniqueId()}:`, commandTimeoutMs: 100 });
    key = `${kv.prefix}k`;
    await kv.client.set(key, 'v');
  });
  afterEach(async () => {
    await kv.client.del(key);
    await kv.close();
  });

  test('a busy stretch in the turn that issued the command does not time it out', async () => {
    const reply = settled(kv.client.get(key));
    busy(300); // the command is written at the end of this turn, 300 ms after it was issued
    expect(await reply).toEqual({ ok: true, v: 'v' });
  });

  test('a reply that arrived while the loop was busy is read, not timed out', async () => {
    const reply = settled(kv.client.get(key));
    await new Promise((resolve) => setImmediate(resolve)); // written now
    busy(300); // Redis answers meanwhile; the timer has long expired when the loop is free again
    expect(await reply).toEqual({ ok: true, v: 'v' });
  });

  test('several turns of commands behind one busy stretch are all answered', async () => {
    const first = settled(kv.client.get(key));
    await new Promise((resolve) => setImmediate(resolve));
    const second = settled(kv.client.incr(`${key}:n`));
    busy(250);
    expect(await first).toEqual({ ok: true, v: 'v' });
    expect(await second).toEqual({ ok: true, v: 1 });
    await kv.client.del(`${key}:n`);
  });

  test('a command Redis does not answer within the timeout fails with "Command timed out"', async () => {
    const started = Date.now();
    // BLPOP on an empty list: Redis answers only after 1 s, ten times the timeout.
    const reply = await settled(kv.client.blpop(`${key}:empty`, 1));
    expect(reply).toEqual({ ok: false, err: 'Command timed out' });
    expect(Date.now() - started).toBeLessThan(900);
    // Redis still holds the connection in BLPOP until its 1 s are up; cleanup waits for that.
    await new Promise((resolve) => setTimeout(resolve, 1100 - (Date.now() - started)));
  });
});
