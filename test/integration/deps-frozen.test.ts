/**
 * The deps are built once and frozen (src/deps.ts): `assembleDeps` and `openDependencies` return
 * an object no field of which can be replaced (assignment throws in strict mode), and a part a test
 * needs to be another one is given at build time (`wrap`), which is then what the app runs on.
 */
import { assembleDeps, closeDependencies, openDependencies, type AppDeps } from '../../src/deps';
import { UNLIMITED, type SpendGuard } from '../../src/budgets/types';
import type { UsageEvent } from '../../src/usage/types';
import { MemoryKv } from '../../src/kv/memory';
import { createLogger } from '../../src/observability/logger';
import { testConfig } from '../helpers/gateway';
import { openTestPglite, uniqueId } from '../helpers/services';
import { tempDir } from '../helpers/temp-dir';
import { startGatewayHarness } from '../fakes/gateway-harness';

/** Assign `value` to `deps[field]` as a test once did to a live app (a type error now, so through a cast). */
function assign(deps: AppDeps, field: string, value: unknown): void {
  (deps as unknown as Record<string, unknown>)[field] = value;
}

test('assembleDeps returns frozen deps: replacing a part throws, and the parts are the ones built', async () => {
  const db = await openTestPglite();
  const deps = await assembleDeps(testConfig(), db, new MemoryKv(`t:${uniqueId()}:`), {
    logger: createLogger('silent'),
  });
  try {
    expect(Object.isFrozen(deps)).toBe(true);
    expect(Object.isFrozen(deps.rankings)).toBe(true);
    const spend = deps.spend;
    expect(() => assign(deps, 'spend', UNLIMITED)).toThrow(TypeError);
    expect(() => assign(deps, 'recorder', { record: () => Promise.resolve() })).toThrow(TypeError);
    expect(() => assign(deps, 'logger', createLogger('silent'))).toThrow(TypeError);
    expect(() => assign(deps, 'embeddingsCache', undefined)).toThrow(TypeError);
    expect(() => assign(deps, 'clock', () => 0)).toThrow(TypeError);
    expect(() => ((deps.rankings as { sampler: unknown }).sampler = null)).toThrow(TypeError);
    expect(deps.spend).toBe(spend);
    // The one mutable part: graceful shutdown flips it.
    deps.state.draining = true;
    expect(deps.state.draining).toBe(true);
  } finally {
    await closeDependencies(deps);
  }
});

test('openDependencies returns frozen deps holding the maintenance job it started', async () => {
  const config = testConfig({
    database: { dataDir: tempDir('sy-deps-frozen-') },
    analytics: { maintenanceIntervalMs: 3_600_000 },
  });
  const deps = await openDependencies(config, { logger: createLogger('silent') });
  try {
    expect(Object.isFrozen(deps)).toBe(true);
    expect(deps.stopMaintenance).toEqual(expect.any(Function));
    expect(() => assign(deps, 'stopMaintenance', undefined)).toThrow(TypeError);
  } finally {
    await closeDependencies(deps);
  }
}, 60_000); // a fresh embedded database, migrated

test('a spend guard and recorder given at build time are what the app reserves and records with', async () => {
  const seen: string[] = [];
  const recorded: UsageEvent[] = [];
  let built: SpendGuard | undefined;
  const h = await startGatewayHarness({
    wrap: {
      spend: (real) => {
        built = real;
        return {
          async reserve(key, usd, requestId) {
            seen.push('reserve');
            const held = await real.reserve(key, usd, requestId);
            return {
              settle: (actual) => (seen.push('settle'), held.settle(actual)),
              release: () => (seen.push('release'), held.release()),
            };
          },
        };
      },
      recorder: (real) => ({ ...real, record: (e) => (recorded.push(e), real.record(e)) }),
    },
  });
  try {
    expect(h.gw.deps.spend).not.toBe(built);
    const res = await h.post({ model: 'openai/text-embedding-3-small', input: 'hello' });
    expect(res.status).toBe(200);
    await h.gw.deps.embeddings.drain();
    expect(seen).toEqual(['reserve', 'settle']);
    expect(recorded.map((e) => e.id)).toEqual([res.body.id]);
    // The wrapped recorder was handed the harness's listing one: it still lists the event.
    expect(h.events.map((e) => e.id)).toEqual([res.body.id]);
  } finally {
    await h.close();
  }
});
