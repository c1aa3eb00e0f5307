/**
 * Session affinity on the in-process store with a clock the test moves: a session's endpoint
 * expires after the TTL without requests (each lookup restarts it), is kept apart per workspace
 * and model, is written only when another endpoint of its model answered, and lookups cost
 * nothing without a session or with stickiness off.
 */
import { MemoryKv } from '../../src/kv/memory';
import type { Kv } from '../../src/kv/kv';
import { createLogger } from '../../src/observability/logger';
import { SessionAffinity } from '../../src/routing/session-affinity';
import { chatEndpoint } from '../helpers/chat-endpoint';

const TTL = 60_000;
const A = { orgId: 'org-a', workspaceId: 'ws-1' };
const cheap = chatEndpoint({}, 'deepinfra');
const dear = chatEndpoint({}, 'groq');
const otherModel = chatEndpoint({ id: 'groq:other/model', modelId: 'other/model' }, 'groq');

describe('SessionAffinity', () => {
  let now: number;
  let kv: MemoryKv;
  let affinity: SessionAffinity;
  beforeEach(() => {
    now = 1_000_000;
    kv = new MemoryKv('t:', () => now);
    affinity = new SessionAffinity(kv, TTL, createLogger('silent'));
  });
  afterEach(() => kv.close());

  const pinned = async (scope = A, session = 's1', model = 'test/model') =>
    (await affinity.lookup(scope, session, model))?.endpointId;
  async function stick(endpoint = dear, scope = A, session = 's1') {
    const pin = await affinity.lookup(scope, session, 'test/model');
    await affinity.remember(pin!, endpoint);
  }

  test('the endpoint that answered is first next time; the rest keep their order', async () => {
    await stick();
    const pin = await affinity.lookup(A, 's1', 'test/model');
    const third = chatEndpoint({}, 'together');
    expect(SessionAffinity.ordered([cheap, third, dear], pin).map((e) => e.id)).toEqual([dear.id, cheap.id, third.id]);
    // Not among the candidates (excluded by this request's rules): the order is unchanged.
    expect(SessionAffinity.ordered([cheap, third], pin).map((e) => e.id)).toEqual([cheap.id, third.id]);
  });

  test('expires after the TTL without requests; each request restarts it', async () => {
    await stick();
    now += TTL - 1;
    expect(await pinned()).toBe(dear.id);
    now += TTL - 1;
    expect(await pinned()).toBe(dear.id);
    now += TTL;
    expect(await pinned()).toBeNull();
  });

  test('kept apart per organization, workspace, model and session', async () => {
    await stick();
    expect(await pinned({ orgId: 'org-b', workspaceId: 'ws-1' })).toBeNull();
    expect(await pinned({ orgId: 'org-a', workspaceId: 'ws-2' })).toBeNull();
    expect(await pinned(A, 's2')).toBeNull();
    expect(await pinned(A, 's1', 'other/model')).toBeNull();
    expect(await pinned()).toBe(dear.id);
  });

  test('written only when another endpoint of the pinned model answered', async () => {
    const run = jest.spyOn(kv, 'run');
    const fresh = await affinity.lookup(A, 's1', 'test/model');
    // A fallback model's endpoint answered: the session's model keeps no affinity to it.
    expect(affinity.remember(fresh!, otherModel)).toBeUndefined();
    await affinity.remember(fresh!, dear);
    const known = await affinity.lookup(A, 's1', 'test/model');
    run.mockClear();
    expect(affinity.remember(known!, dear)).toBeUndefined();
    expect(run).not.toHaveBeenCalled();
  });

  test('no session, or stickiness off (TTL 0): no lookup at all', () => {
    const run = jest.spyOn(kv, 'run');
    expect(affinity.lookup(A, null, 'test/model')).toBeNull();
    expect(affinity.lookup(A, '', 'test/model')).toBeNull();
    expect(new SessionAffinity(kv, 0, createLogger('silent')).lookup(A, 's1', 'test/model')).toBeNull();
    expect(run).not.toHaveBeenCalled();
  });

  test('a store fault is no affinity, and a failed write is logged, not thrown', async () => {
    const broken = { run: () => Promise.reject(new Error('down')) } as unknown as Kv;
    const logger = createLogger('silent');
    const warn = jest.spyOn(logger, 'warn');
    const faulty = new SessionAffinity(broken, TTL, logger);
    expect(await faulty.lookup(A, 's1', 'test/model')).toBeNull();
    await expect(faulty.remember({ key: 'k', modelId: 'test/model', endpointId: null }, dear)).resolves.toBeUndefined();
    expect(warn.mock.calls.map((call) => call[0] as unknown)).toEqual([
      'session affinity unavailable; routing without it',
      'session affinity not stored',
    ]);
  });
});
