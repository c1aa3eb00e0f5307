/**
 * The in-process analytics maintenance job: off at interval 0; otherwise one pass per interval
 * (never two at once), failures logged and not thrown, and stop waits for a pass in progress.
 */
import { startMaintenance } from '../../src/analytics/maintenance';
import { createLogger } from '../../src/observability/logger';
import type { Database, Queryable } from '../../src/store/db';

function stubDb(onQuery: (sql: string) => unknown[] | Promise<unknown[]>) {
  const q: Queryable = { query: async <T>(sql: string) => (await onQuery(sql)) as T[] };
  return {
    ...q,
    withLock: (_n: string, fn: () => Promise<unknown>) => fn(),
    transaction: (fn: (tx: Queryable) => Promise<unknown>) => fn(q),
  } as unknown as Database;
}

afterEach(() => jest.useRealTimers());

test('interval 0: no job', async () => {
  const seen: string[] = [];
  const stop = startMaintenance(
    stubDb((sql) => (seen.push(sql), [])),
    createLogger('silent'),
    { intervalMs: 0, retentionDays: 0, clock: Date.now },
  );
  await stop();
  expect(seen).toEqual([]);
});

test('one pass per interval, a slow pass is not overlapped, failures are logged, stop waits', async () => {
  jest.useFakeTimers();
  let refreshes = 0;
  let release: () => void = () => undefined;
  let failNext = false;
  const db = stubDb(async (sql) => {
    if (sql.includes('FROM usage_rollup_watermark')) {
      refreshes++;
      if (failNext) throw new Error('boom');
      if (refreshes === 2) await new Promise<void>((r) => (release = r));
      return [];
    }
    if (sql.includes('min(created_at)')) return [{ t: null }];
    return [];
  });
  const errors: string[] = [];
  const logger = createLogger('silent');
  logger.error = ((msg: string) => (errors.push(msg), logger)) as typeof logger.error;
  const stop = startMaintenance(db, logger, {
    intervalMs: 1000,
    retentionDays: 0,
    clock: () => Date.parse('2026-11-20T00:00:00Z'),
  });
  await jest.advanceTimersByTimeAsync(1000);
  expect(refreshes).toBe(1);
  await jest.advanceTimersByTimeAsync(1000); // second pass starts and hangs
  await jest.advanceTimersByTimeAsync(3000); // ticks while it runs are skipped
  expect(refreshes).toBe(2);
  release();
  await jest.advanceTimersByTimeAsync(0);
  failNext = true;
  await jest.advanceTimersByTimeAsync(1000);
  expect(errors).toEqual(['analytics maintenance failed']);
  await stop();
  const after = refreshes;
  await jest.advanceTimersByTimeAsync(5000);
  expect(refreshes).toBe(after);
});
