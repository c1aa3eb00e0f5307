/**
 * The rankings rollup on every database: idempotent (run twice, same tables), late usage records
 * for past days picked up (by ingest time, beyond the lookback), two runners at once (two
 * replicas over one database) never double count, the run gap of the schedule, the `rollup` CLI
 * command on an embedded data dir, and the in-process schedule with an injected timer.
 */
import { DATABASES, postgresLocation, seededDataDir } from '../helpers/services';
import { createTestGateway, gatewayApp, type TestGateway } from '../helpers/gateway';
import { closeDependencies } from '../../src/deps';
import { getRankings, insertUses } from '../helpers/rankings';
import { MemoryKv } from '../../src/kv/memory';
import type { Database } from '../../src/store/db';
import { RankingsRollup } from '../../src/datasets/rollup';
import { RollupScheduler, nodeTimer, type Timer } from '../../src/datasets/scheduler';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import { runCli } from '../../src/cli/run';
import { openPglite } from '../../src/store/pglite';
import { openPostgres } from '../../src/store/postgres';

const NOW = Date.UTC(2026, 4, 12, 2, 0);
const M = 'openai/text-embedding-3-large';

/** Every rollup table's content, in a fixed order, for equality checks. */
async function snapshot(db: Database) {
  return {
    daily: await db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, org_id, model, image_input, audio_input, output_modality, tool_calling, context_bucket, tokens::text, requests::text FROM rankings_daily ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`,
    ),
    totals: await db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, org_id, model, tokens::text FROM rankings_daily_totals ORDER BY 1, 2, 3`,
    ),
  };
}

describe.each(DATABASES)('rankings rollup on $name', (dbKind) => {
  let db: Database;
  let gw: TestGateway;
  let now = NOW;

  beforeAll(async () => {
    db = await dbKind.open();
    gw = await createTestGateway(db, new MemoryKv(), {}, () => now);
  });
  afterAll(async () => {
    await db.close();
  });

  const tokensOn = async (date: string) =>
    (await getRankings(gw.app, gw.mgmtKey, { start_date: date, end_date: date })).body.data.map(
      (r: { model_permaslug: string; total_tokens: string }) => [r.model_permaslug, r.total_tokens],
    );

  test('running twice changes nothing; the answer equals the records', async () => {
    await insertUses(db, [
      { org: gw.orgId, model: M, at: '2026-05-10T01:00:00Z', prompt: 100, completion: 5 },
      { org: gw.orgId, model: M, at: '2026-05-10T02:00:00Z', prompt: 2000 },
      {
        org: gw.orgId,
        model: 'x/chat',
        at: '2026-05-11T02:00:00Z',
        prompt: 7,
        apiType: 'chat',
        outputModality: 'text',
        toolCalls: 1,
      },
    ]);
    const first = await gw.deps.rankings.rollup.run();
    expect(first.days).toEqual(expect.arrayContaining(['2026-05-10', '2026-05-11', '2026-05-12']));
    const once = await snapshot(db);
    await gw.deps.rankings.rollup.run();
    await gw.deps.rankings.rollup.rollRange(20583, 20585); // 2026-05-10 … 2026-05-12, by hand
    expect(await snapshot(db)).toEqual(once);
    expect(await tokensOn('2026-05-10')).toEqual([[M, '2105']]);
    expect(once.daily.filter((r) => r.day === '2026-05-10')).toHaveLength(2); // two context buckets
  });

  test('a late record for a day long past (beyond the lookback) is picked up by the next run, once', async () => {
    await insertUses(db, [{ org: gw.orgId, model: M, at: '2026-03-03T12:00:00Z', prompt: 40 }]);
    await gw.deps.rankings.rollup.run();
    expect(await tokensOn('2026-03-03')).toEqual([[M, '40']]);
    // Written later (an outbox drained after an outage): same day, new record.
    now += 3_600_000;
    await insertUses(db, [{ org: gw.orgId, model: M, at: '2026-03-03T13:00:00Z', prompt: 2 }]);
    const late = await gw.deps.rankings.rollup.run();
    expect(late.days).toContain('2026-03-03');
    expect(await tokensOn('2026-03-03')).toEqual([[M, '42']]);
    await gw.deps.rankings.rollup.run();
    expect(await tokensOn('2026-03-03')).toEqual([[M, '42']]);
    // as_of moves with the runs.
    const res = await getRankings(gw.app, gw.mgmtKey);
    expect(res.body.meta.as_of).toBe(new Date(now).toISOString());
  });

  test('two runners at once (two replicas) take turns: no error, no double count', async () => {
    await insertUses(
      db,
      Array.from({ length: 200 }, (_, i) => ({
        org: gw.orgId,
        model: `bulk/m${i % 7}`,
        at: `2026-05-09T${String(i % 24).padStart(2, '0')}:00:00Z`,
        prompt: 10,
      })),
    );
    const second = await gatewayApp(db, new MemoryKv(), {}, () => now);
    const closers: Array<() => Promise<void>> = [];
    try {
      // On Postgres a runner over a pool of its own (another replica's), so only the advisory lock keeps them apart.
      const where = postgresLocation(db);
      const own = where ? await openPostgres({ url: where.url, schema: where.schema, poolSize: 2 }) : db;
      closers.push(() => (own === db ? Promise.resolve() : own.close()));
      const runners = [
        gw.deps.rankings.rollup,
        second.deps.rankings.rollup,
        new RankingsRollup(own, { lookbackDays: 3, clock: () => now }),
      ];
      const results = await Promise.all([
        ...runners.map((r) => r.run()),
        ...runners.map((r) => r.rollRange(20582, 20582)),
      ]);
      expect(results.every((r) => r.days.includes('2026-05-09'))).toBe(true);
      const rows = await tokensOn('2026-05-09');
      expect(rows.reduce((sum: number, [, t]: [string, string]) => sum + Number(t), 0)).toBe(2000);
    } finally {
      await closeDependencies({ ...second.deps, db: { ...db, close: () => Promise.resolve() } });
      for (const close of closers) await close();
    }
  });

  test('a run within minGapMs of the last one is skipped (replicas on one schedule)', async () => {
    const before = await gw.deps.rankings.rollup.asOf();
    const skipped = await gw.deps.rankings.rollup.run(60_000);
    expect(skipped.days).toEqual([]);
    expect(skipped.rolledAt).toEqual(before);
    now += 120_000;
    const ran = await gw.deps.rankings.rollup.run(60_000);
    expect(ran.days.length).toBeGreaterThan(0);
  });
});

describe('rollup CLI command on an embedded data dir', () => {
  test('rolls up what is due; refuses bad --from/--to with exit 2', async () => {
    // A migrated data dir from the suite's archive (initdb took seconds of this test on a busy machine);
    // `migrate` below then finds nothing to do, as on a gateway's data dir.
    const dir = await seededDataDir('sy-rollup-cli-');
    const env = { SWITCHYARD_DATA_DIR: dir };
    const lines: string[] = [];
    const out = { line: (t: string) => lines.push(t) };
    expect(await runCli(['migrate'], env, out, out)).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    let db = await openPglite({ dataDir: dir });
    const earlier = new Date(Date.now() - 3 * 86_400_000).toISOString();
    await insertUses(db, [
      { org: '00000000-0000-4000-8000-000000000001', model: M, at: new Date().toISOString(), prompt: 9 },
      { org: '00000000-0000-4000-8000-000000000001', model: M, at: earlier, prompt: 4 },
    ]);
    await db.close();
    expect(await runCli(['rollup'], env, out, out)).toBe(0);
    expect(lines.join('\n')).toMatch(new RegExp(`rankings rolled up: .*${today}; as_of [^;]*$`, 'm'));
    // In the installation scope the same command also publishes the completed days.
    expect(await runCli(['rollup'], { ...env, RANKINGS_SCOPE: 'installation' }, out, out)).toBe(0);
    expect(lines.join('\n')).toMatch(/; published [23] day\(s\) and [01] week\(s\)$/m);
    db = await openPglite({ dataDir: dir });
    try {
      const rows = await db.query<{ tokens: string }>(
        `SELECT tokens::text FROM rankings_daily_totals WHERE day = $1::date`,
        [today],
      );
      expect(rows).toEqual([{ tokens: '9' }]);
      const published = await db.query(
        `SELECT 1 FROM rankings_published_units WHERE kind = 'day' AND unit = $1::date`,
        [earlier.slice(0, 10)],
      );
      expect(published).toHaveLength(1);
    } finally {
      await db.close();
    }
    expect(await runCli(['rollup', '--from', '2026-01-02'], env, out, out)).toBe(2);
    expect(await runCli(['rollup', '--from', '2024-01-02', '--to', '2024-01-03'], env, out, out)).toBe(2);
    expect(await runCli(['rollup', '--from', '2026-01-03', '--to', '2026-01-02'], env, out, out)).toBe(2);
    expect(await runCli(['rollup', '--from', '2026-01-03', '--to', '9999-12-31'], env, out, out)).toBe(2);
    expect(await runCli(['rollup', '--from', '2026-01-02', '--to', '2026-01-03'], env, out, out)).toBe(0);
    expect(lines.join('\n')).toMatch(/rankings rolled up: 2 day\(s\), 2026-01-02 to 2026-01-03/);
    // Five opens of an embedded data dir: seconds each on a busy machine.
  }, 180_000);
});

describe('RollupScheduler', () => {
  /** A timer run by hand: what is scheduled, and for when. */
  function manualTimer() {
    const pending: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
    const timer: Timer = (fn, ms) => {
      const entry = { fn, ms, cancelled: false };
      pending.push(entry);
      return { cancel: () => void (entry.cancelled = true) };
    };
    const fire = () => {
      const next = pending.find((p) => !p.cancelled);
      if (!next) throw new Error('nothing scheduled');
      pending.splice(pending.indexOf(next), 1);
      next.fn();
    };
    return { timer, pending, fire };
  }
  const logger = createLogger('silent');

  test('first run at once, the next an interval after it ends; a failure is counted and the schedule goes on; stop waits and cancels', async () => {
    const t = manualTimer();
    const metrics = new Metrics();
    let runs = 0;
    let release: () => void = () => undefined;
    const run = () => {
      runs++;
      if (runs === 2) return Promise.reject(new Error('database away'));
      return new Promise<void>((resolve) => (release = resolve));
    };
    const scheduler = new RollupScheduler(run, 300_000, metrics, logger, t.timer);
    scheduler.start();
    scheduler.start(); // idempotent
    expect(t.pending.map((p) => p.ms)).toEqual([0]);
    t.fire();
    expect(runs).toBe(1);
    expect(t.pending.filter((p) => !p.cancelled)).toHaveLength(0); // nothing scheduled while running
    release();
    await new Promise((r) => setImmediate(r));
    expect(t.pending.filter((p) => !p.cancelled).map((p) => p.ms)).toEqual([300_000]);
    t.fire();
    await new Promise((r) => setImmediate(r));
    expect(runs).toBe(2);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/switchyard_rankings_rollups_total\{outcome="ok"\} 1/);
    expect(text).toMatch(/switchyard_rankings_rollups_total\{outcome="failed"\} 1/);
    expect(t.pending.filter((p) => !p.cancelled).map((p) => p.ms)).toEqual([300_000]);
    t.fire();
    expect(runs).toBe(3);
    const stopped = scheduler.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false); // waits for the run in progress
    release();
    await stopped;
    expect(t.pending.filter((p) => !p.cancelled)).toHaveLength(0); // nothing after stop
  });

  test("interval 0 never schedules; the default timer is unref'd and cancellable", () => {
    const t = manualTimer();
    new RollupScheduler(() => Promise.resolve(), 0, new Metrics(), logger, t.timer).start();
    expect(t.pending).toHaveLength(0);
    // Jest's fake timers stand in for Node's (same API, unref and hasRef included): time is moved
    // well past the timer's due time by hand instead of slept through.
    jest.useFakeTimers();
    try {
      let fired = false;
      const handle = nodeTimer(() => (fired = true), 5);
      expect(handle.hasRef?.()).toBe(false);
      handle.cancel();
      jest.advanceTimersByTime(1000);
      expect(fired).toBe(false);
      // The same timer left alone does fire: the advance above would have run it.
      nodeTimer(() => (fired = true), 5);
      jest.advanceTimersByTime(1000);
      expect(fired).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});
