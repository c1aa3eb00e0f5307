/**
 * The circuit breaker's state machine on both Kv kinds with a controllable clock: closed →
 * open after N consecutive failures → one half-open probe after the cooldown → closed on its
 * success or open again on its failure; successes reset the count; replicas share the state.
 */
import { PassThrough } from 'node:stream';
import { KVS } from '../helpers/services';
import { createLogger } from '../../src/observability/logger';
import type { Kv } from '../../src/kv/kv';
import { Metrics } from '../../src/observability/metrics';
import { CircuitBreaker, CircuitState, HEALTHY_CACHE_MS, type Circuits } from '../../src/routing/breaker';
import { runWithFallback } from '../../src/routing/run-with-fallback';
import { retryAfter } from '../../src/transport/outcome';
import type { Endpoint } from '../../src/catalog/types';

const endpoint = { id: 'fake:model/a', modelId: 'model/a', provider: { slug: 'fake' } } as unknown as Endpoint;
const other = { id: 'other:model/a', modelId: 'model/a', provider: { slug: 'other' } } as unknown as Endpoint;

describe.each(KVS)('circuit breaker on $name', (kvKind) => {
  let kv: Kv;
  let now: number;
  let breakers: CircuitBreaker[];
  /** Organization A's view on the first replica, and on a second replica over the same Kv. */
  let breaker: Circuits;
  let replica: Circuits;
  beforeEach(async () => {
    kv = await kvKind.open();
    now = 1_000_000;
    breakers = [0, 1].map(
      () => new CircuitBreaker(kv, new Metrics(), { failureThreshold: 3, cooldownMs: 5000 }, () => now),
    );
    breaker = breakers[0]!.forOrg('org-a');
    replica = breakers[1]!.forOrg('org-a');
  });
  afterEach(async () => {
    await kv.close();
  });

  const fail = async (b = breaker) => b.report(endpoint, await b.acquire(endpoint), false);

  test('closed until the threshold of consecutive failures, then open', async () => {
    await fail();
    await fail();
    expect(await breaker.acquire(endpoint)).toEqual({ state: CircuitState.Closed, failures: 2 });
    await fail();
    expect((await breaker.acquire(endpoint)).state).toBe(CircuitState.Open);
    expect((await replica.acquire(endpoint)).state).toBe(CircuitState.Open);
    expect((await breaker.acquire(other)).state).toBe(CircuitState.Closed);
  });

  test('acquireNow answers only for a circuit this replica knows healthy; a routine success reports nothing', async () => {
    expect(breaker.acquireNow(endpoint)).toBeUndefined(); // never looked at: ask the store
    const permit = await breaker.acquire(endpoint);
    expect(breaker.acquireNow(endpoint)).toEqual({ state: CircuitState.Closed, failures: 0 });
    expect(breaker.report(endpoint, permit, true)).toBeUndefined(); // nothing to record, no promise
    await breaker.report(endpoint, permit, false);
    expect(breaker.acquireNow(endpoint)).toBeUndefined(); // a failure seen here is seen at once
    expect(await breaker.acquire(endpoint)).toEqual({ state: CircuitState.Closed, failures: 1 });
    expect(breaker.acquireNow(endpoint)).toBeUndefined(); // failures: every call asks the store
    now += HEALTHY_CACHE_MS;
    expect(replica.acquireNow(endpoint)).toBeUndefined();
  });

  test('a success resets the consecutive count', async () => {
    await fail();
    await fail();
    await breaker.report(endpoint, await breaker.acquire(endpoint), true);
    await fail();
    await fail();
    expect((await breaker.acquire(endpoint)).state).toBe(CircuitState.Closed);
  });

  test('after the cooldown exactly one caller gets the half-open probe; success closes', async () => {
    for (let i = 0; i < 3; i++) await fail();
    now += 4999;
    expect((await breaker.acquire(endpoint)).state).toBe(CircuitState.Open);
    now += 1;
    const probe = await breaker.acquire(endpoint);
    expect(probe.state).toBe(CircuitState.HalfOpen);
    expect((await replica.acquire(endpoint)).state).toBe(CircuitState.Open);
    await breaker.report(endpoint, probe, true);
    expect(await replica.acquire(endpoint)).toEqual({ state: CircuitState.Closed, failures: 0 });
  });

  test('a failed probe reopens for another cooldown', async () => {
    for (let i = 0; i < 3; i++) await fail();
    now += 5000;
    const probe = await breaker.acquire(endpoint);
    expect(probe.state).toBe(CircuitState.HalfOpen);
    await breaker.report(endpoint, probe, false);
    expect((await breaker.acquire(endpoint)).state).toBe(CircuitState.Open);
    now += 5000;
    expect((await breaker.acquire(endpoint)).state).toBe(CircuitState.HalfOpen);
  });

  test('a replica trusts its last look at a healthy circuit for at most HEALTHY_CACHE_MS', async () => {
    expect((await replica.acquire(endpoint)).state).toBe(CircuitState.Closed);
    for (let i = 0; i < 3; i++) await fail();
    expect((await replica.acquire(endpoint)).state).toBe(CircuitState.Closed); // cached
    now += HEALTHY_CACHE_MS;
    expect((await replica.acquire(endpoint)).state).toBe(CircuitState.Open);
  });

  test('a half-open probe answered with a client error closes the circuit; one rate-limited reopens it', async () => {
    const opts = { attemptTimeoutMs: 1000, deadlineMs: 1000, breaker };
    for (let i = 0; i < 3; i++) await fail();
    now += 5000;
    await runWithFallback(
      [endpoint],
      () => Promise.resolve({ outcome: 'client', status: 400, reason: 'bad input' }),
      opts,
    );
    expect(await breaker.acquire(endpoint)).toEqual({ state: CircuitState.Closed, failures: 0 });
    for (let i = 0; i < 3; i++) await fail();
    now += 5000;
    await runWithFallback(
      [endpoint],
      () => Promise.resolve({ outcome: 'rate_limited', status: 429, reason: 'slow down' }),
      opts,
    );
    expect((await breaker.acquire(endpoint)).state).toBe(CircuitState.Open);
  });

  test('an unused probe is handed out again once its own cooldown passed', async () => {
    for (let i = 0; i < 3; i++) await fail();
    now += 5000;
    expect((await breaker.acquire(endpoint)).state).toBe(CircuitState.HalfOpen);
    now += 5000;
    expect((await replica.acquire(endpoint)).state).toBe(CircuitState.HalfOpen);
  });
});

describe.each(KVS)('circuits per organization on $name', (kvKind) => {
  let kv: Kv;
  let now: number;
  let breaker: CircuitBreaker;
  beforeEach(async () => {
    kv = await kvKind.open();
    now = 1_000_000;
    breaker = new CircuitBreaker(kv, new Metrics(), { failureThreshold: 3, cooldownMs: 5000 }, () => now);
  });
  afterEach(async () => {
    await kv.close();
  });

  const fail = async (org: string) => {
    const view = breaker.forOrg(org);
    await view.report(endpoint, await view.acquire(endpoint), false);
  };
  const stateFor = async (org: string) => (await breaker.forOrg(org).acquire(endpoint)).state;

  test("one organization's streak opens its own circuit only", async () => {
    for (let i = 0; i < 5; i++) await fail('a');
    expect(await stateFor('a')).toBe(CircuitState.Open);
    expect(await stateFor('b')).toBe(CircuitState.Closed);
    expect((await breaker.peek(endpoint, 'a'))?.state).toBe(CircuitState.Open);
    expect((await breaker.peek(endpoint, 'b'))?.state).toBe(CircuitState.Closed);
  });

  test('a streak with failures from two organizations opens the shared circuit for every organization', async () => {
    await fail('a');
    await fail('a');
    expect(await stateFor('c')).toBe(CircuitState.Closed);
    await fail('b');
    expect(await stateFor('c')).toBe(CircuitState.Open);
    expect((await breaker.peek(endpoint, 'c'))?.state).toBe(CircuitState.Open);
  });

  test('a success ends the shared streak: failures either side of it do not add up', async () => {
    await fail('a');
    await fail('a');
    const b = breaker.forOrg('b');
    await b.report(endpoint, await b.acquire(endpoint), true);
    await fail('c');
    await fail('a');
    expect(await stateFor('d')).toBe(CircuitState.Closed);
  });

  test("the shared circuit's probe goes to one organization; its failure reopens it for all", async () => {
    await fail('a');
    await fail('b');
    await fail('a');
    now += 5000;
    const probe = await breaker.forOrg('c').acquire(endpoint);
    expect(probe.state).toBe(CircuitState.HalfOpen);
    expect(await stateFor('d')).toBe(CircuitState.Open);
    await breaker.forOrg('c').report(endpoint, probe, false);
    now += 4999;
    expect(await stateFor('d')).toBe(CircuitState.Open);
  });
});

test("an unreachable Kv fails open: calls proceed as if closed, logged with the error's message and stack", async () => {
  const broken = { run: () => Promise.reject(new Error('redis down')) } as unknown as Kv;
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => void (written += chunk.toString('utf8')));
  const breaker = new CircuitBreaker(
    broken,
    new Metrics(),
    { failureThreshold: 1, cooldownMs: 1000 },
    () => 0,
    createLogger('warn', stream),
  ).forOrg('org-a');
  const permit = await breaker.acquire(endpoint);
  expect(permit).toEqual({ state: CircuitState.Closed, failures: 0 });
  await expect(breaker.report(endpoint, permit, false)).resolves.toBeUndefined();
  await new Promise((resolve) => setImmediate(resolve));
  const lines = written
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { message: string; err: { message: string; stack: string } });
  expect(lines.length).toBeGreaterThanOrEqual(1);
  for (const line of lines) {
    expect(line).toMatchObject({
      message: 'circuit breaker state unavailable; failing open',
      err: { name: 'Error', message: 'redis down' },
    });
    expect(line.err.stack).toContain('Error: redis down\n    at ');
  }
});

test('Retry-After: seconds or an HTTP date, as whole seconds clamped to [0, 3600]', () => {
  const now = Date.UTC(2026, 0, 1);
  expect(retryAfter('3', now)).toBe(3);
  expect(retryAfter('2.1', now)).toBe(3);
  expect(retryAfter('-5', now)).toBe(0);
  expect(retryAfter('99999999999', now)).toBe(3600);
  expect(retryAfter(new Date(now + 30_000).toUTCString(), now)).toBe(30);
  expect(retryAfter('Fri, 01 Jan 2300 00:00:00 GMT', now)).toBe(3600);
  expect(retryAfter('soon', now)).toBeUndefined();
  expect(retryAfter(undefined, now)).toBeUndefined();
});
