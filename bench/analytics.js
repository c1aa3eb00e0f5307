/**
 * `npm run bench:analytics`: analytics over synthetic usage at scale, on Postgres.
 *
 * Creates a throw-away database (BENCH_DATABASE_URL, as the other benchmarks), migrates it with
 * the built gateway (dist/), and loads BENCH_ANALYTICS_ROWS usage rows (default 10,000,000) over
 * 90 days with `INSERT … SELECT FROM generate_series` in batches: two organizations (9:1), 10
 * workspaces, 50 keys (each in one workspace, using 3 of 40 models), 8 providers. It times the
 * load, then the rollup refresh over all 90 days, then each query below (median of 5 after one
 * warm-up), through the gateway's AnalyticsService, with the rollup and on raw rows only:
 *
 *   q1  30-day daily request_count + total_usage by model
 *   q2  365-day monthly total_usage by workspace
 *   q3  7-day p99_latency by provider (the hourly latency histograms; raw rows: exact)
 *   q4  30-day daily request_count by api_key_id, group_limit 3 (top 3 days per key)
 *
 * Prints one JSON object. Loopback only; bounded by the row count.
 */
'use strict';
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const { prepareServices } = require('./lib/services');

const dist = (p) => require(path.join(__dirname, '..', 'dist', 'src', p));
const ROWS = Number(process.env.BENCH_ANALYTICS_ROWS || 10_000_000);
const BATCH = 500_000;
const DAY = 86_400_000;
const END = Date.parse('2026-11-20T00:00:00Z');
const START = END - 90 * DAY;

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

async function timed(fn) {
  const t = process.hrtime.bigint();
  const r = await fn();
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, r };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main() {
  const { openPostgres } = dist('store/postgres');
  const { migrate } = dist('store/migrate');
  const { AnalyticsService } = dist('analytics/service');
  const { refreshRollup } = dist('analytics/rollup');
  const services = await prepareServices();
  const db = await openPostgres({ url: services.env.DATABASE_URL, poolSize: 4 });
  const out = { rows: ROWS, days: 90 };
  try {
    await migrate(db);
    const orgs = [randomUUID(), randomUUID()];
    const workspaces = Array.from({ length: 10 }, () => randomUUID());
    const keys = Array.from({ length: 50 }, (_, k) => k.toString(16).padStart(2, '0').repeat(32));
    for (const org of orgs) await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'bench')`, [org]);
    for (const [i, ws] of workspaces.entries()) {
      await db.query(`INSERT INTO workspaces (id, org_id, name, slug, is_default) VALUES ($1, $2, $3, $4, $5)`, [
        ws,
        orgs[0],
        `Workspace ${i}`,
        `ws-${i}`,
        i === 0,
      ]);
    }
    for (const [k, hash] of keys.entries()) {
      await db.query(`INSERT INTO api_keys (hash, org_id, workspace_id, name, label) VALUES ($1, $2, $3, $4, $4)`, [
        hash,
        orgs[0],
        workspaces[k % 10],
        `key-${k}`,
      ]);
    }

    // Rows in time order (as the usage outbox writes them); key k lives in workspace k % 10 and uses 3 models.
    const load = await timed(async () => {
      for (let from = 0; from < ROWS; from += BATCH) {
        const to = Math.min(ROWS, from + BATCH);
        await db.query(
          `INSERT INTO generations (id, created_at, org_id, workspace_id, key_hash, model, provider, tokens_prompt, cost_usd, latency_ms,
                                    generation_time_ms, end_user, app_title, is_byok, upstream_cost_usd, variant)
           SELECT 'gen-b-' || i, $1::timestamptz + (i::float8 / $2) * interval '90 days',
                  CASE WHEN i % 10 = 9 THEN $3::uuid ELSE $4::uuid END,
                  ($5::uuid[])[1 + (i * 7 % 50) % 10], ($6::text[])[1 + i * 7 % 50],
                  'model-' || ((i * 7 % 50) * 3 + i % 3) % 40, 'prov-' || (((i * 7 % 50) * 3 + i % 3) % 40) % 8,
                  (i * 13) % 8000, ((i * 13) % 8000) * 2e-8, 50 + (i * 7919) % 2000, 10 + (i * 31) % 500,
                  'user-' || (i % 1000), 'app-' || (i * 7 % 50) % 5, i % 20 = 0, CASE WHEN i % 20 = 0 THEN 0.0001 END,
                  CASE WHEN i % 9 = 0 THEN 'free' END
             FROM generate_series($7::bigint, $8::bigint) AS s(i)`,
          [new Date(START), ROWS, orgs[1], orgs[0], workspaces, keys, from, to - 1],
        );
      }
    });
    out.load = { seconds: +(load.ms / 1000).toFixed(1), rows_per_s: Math.round(ROWS / (load.ms / 1000)) };
    // Autovacuum's work after a load (statistics), timed apart from the load.
    const analyze = await timed(() => db.query('ANALYZE generations'));
    out.analyze_seconds = +(analyze.ms / 1000).toFixed(1);
    const rollup = await timed(() => refreshRollup(db, END + 3_600_000));
    await db.query('ANALYZE usage_rollup_hourly');
    const [size] = await db.query('SELECT count(*)::int AS n FROM usage_rollup_hourly');
    out.rollup_refresh = { seconds: +(rollup.ms / 1000).toFixed(1), hours: rollup.r, rollup_rows: size.n };
    // Ingest with the rollup: the same rows plus the refresh that rolls them up.
    out.ingest_with_rollup_vs_without = +(load.ms / (load.ms + rollup.ms)).toFixed(3);

    const last = (days) => ({ start: iso(END - days * DAY), end: iso(END) });
    const queries = {
      q1_30d_daily_by_model: {
        metrics: ['request_count', 'total_usage'],
        dimensions: ['model'],
        granularity: 'day',
        time_range: last(30),
      },
      q2_365d_monthly_by_workspace: {
        metrics: ['total_usage'],
        dimensions: ['workspace'],
        granularity: 'month',
        time_range: last(365),
      },
      q3_7d_p99_latency_by_provider: { metrics: ['p99_latency'], dimensions: ['provider'], time_range: last(7) },
      q4_30d_group_limit: {
        metrics: ['request_count'],
        dimensions: ['api_key_id'],
        granularity: 'day',
        group_limit: 3,
        order_by: { field: 'request_count', direction: 'desc' },
        time_range: last(30),
      },
    };
    out.queries = {};
    for (const rollupOn of [true, false]) {
      const svc = new AnalyticsService(db, { timeoutMs: 120_000, clock: () => END, rollup: rollupOn });
      for (const [name, body] of Object.entries(queries)) {
        const first = await svc.query(orgs[0], body);
        const times = [];
        for (let i = 0; i < 5; i++) times.push((await timed(() => svc.query(orgs[0], body))).ms);
        out.queries[`${name}${rollupOn ? '' : '_raw'}`] = {
          median_ms: +median(times).toFixed(1),
          rows: first.metadata.row_count,
          truncated: first.metadata.truncated,
        };
      }
    }
  } finally {
    await db.close();
    if (!process.env.BENCH_KEEP) await services.cleanup();
  }
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
