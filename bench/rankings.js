/**
 * `npm run bench:rankings`: the rankings dataset's speed on Postgres (a throw-away database,
 * dropped afterwards). Loads one year of rollups for 500 models (daily facets and totals, weekly
 * sampled tags for every category and language type) and times, median of 5 after a warm-up,
 * through the service the route calls (SQL + ranking): the default query, a 365-day period=week
 * query and a category query. Then writes one day of 1,000,000 usage records and times the
 * rollup of that day (3 runs). Targets: each query ≤ 100 ms; the 1 M-record rollup ≤ 10 s.
 * Prints one JSON line per figure and a summary. BENCH_DATABASE_URL names the admin database.
 */
'use strict';
const { URL } = require('node:url');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { openPostgres } = require('../dist/src/store/postgres');
const { migrate } = require('../dist/src/store/migrate');
const { RankingsRollup } = require('../dist/src/datasets/rollup');
const { RankingsService, catalogFaces } = require('../dist/src/datasets/service');
const { parseDay, formatDay } = require('../dist/src/datasets/dates');

const MODELS = 500;
const DAYS = 365;
const RECORDS = 1_000_000;
const ORG = '00000000-0000-4000-8000-000000000001';
/** The last loaded day, and the clock: the day after it at 02:00 UTC. */
const LAST = '2026-10-31';
const NOW = Date.parse('2026-11-01T02:00:00Z');
const CATEGORIES = [
  'programming',
  'roleplay',
  'marketing',
  'marketing/seo',
  'technology',
  'science',
  'translation',
  'legal',
  'finance',
  'health',
  'trivia',
  'academia',
];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(fn) {
  const t = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, result };
}

async function loadRollups(db) {
  const first = formatDay(parseDay(LAST) - DAYS + 1);
  // Per model and day: three facet rows (text embeddings ≤1K, text embeddings ≤10K, chat text with tools ≤100K).
  await db.query(
    `INSERT INTO rankings_daily (day, org_id, model, image_input, audio_input, output_modality, tool_calling, context_bucket, tokens, requests)
     SELECT d::date, $1::uuid, 'vendor/model-' || lpad(m::text, 3, '0'), false, false, f.out, f.tools, f.bucket,
            (1000000 / m + (hashtext(d::text || m) & 1023)) * f.scale, 100
     FROM generate_series($2::date, $3::date, interval '1 day') d, generate_series(1, $4::int) m,
          (VALUES ('embeddings', false, '1K', 3), ('embeddings', false, '10K', 2), ('text', true, '100K', 1)) AS f(out, tools, bucket, scale)`,
    [ORG, first, LAST, MODELS],
  );
  await db.query(
    `INSERT INTO rankings_daily_totals (day, org_id, model, tokens)
     SELECT day, org_id, model, SUM(tokens) FROM rankings_daily GROUP BY 1, 2, 3`,
  );
  for (const period of ['week', 'month']) {
    await db.query(
      `INSERT INTO rankings_period_totals (period, bucket, org_id, model, tokens, rank)
       SELECT $1, date_trunc($1, day::timestamp)::date, org_id, model, SUM(tokens),
              rank() OVER (PARTITION BY org_id, date_trunc($1, day::timestamp)::date ORDER BY SUM(tokens) DESC)
       FROM rankings_daily_totals GROUP BY 2, 3, 4`,
      [period],
    );
    await db.query(
      `INSERT INTO rankings_period_sums (period, bucket, org_id, tokens)
       SELECT $1, date_trunc($1, day::timestamp)::date, org_id, SUM(tokens) FROM rankings_daily_totals GROUP BY 2, 3`,
      [period],
    );
  }
  await db.query(
    `INSERT INTO rankings_weekly_tags (week, org_id, model, dimension, value, tokens)
     SELECT w::date, $1::uuid, 'vendor/model-' || lpad(m::text, 3, '0'), t.dim, t.val, (500000 / m + (hashtext(w::text || m || t.val) & 4095)) * 20
     FROM generate_series(date_trunc('week', $2::date::timestamp), $3::date, interval '7 days') w, generate_series(1, $4::int) m,
          (SELECT 'category' AS dim, unnest($5::text[]) AS val UNION ALL VALUES ('language_type', 'natural'), ('language_type', 'programming')) t`,
    [ORG, first, LAST, MODELS, CATEGORIES],
  );
  await db.query('ANALYZE rankings_daily');
  await db.query('ANALYZE rankings_daily_totals');
  await db.query('ANALYZE rankings_weekly_tags');
  await db.query('ANALYZE rankings_period_totals');
  await db.query('ANALYZE rankings_period_sums');
  const [counts] = await db.query(
    `SELECT (SELECT count(*) FROM rankings_daily)::int AS daily, (SELECT count(*) FROM rankings_daily_totals)::int AS totals, (SELECT count(*) FROM rankings_weekly_tags)::int AS tags`,
  );
  return counts;
}

async function loadUsageDay(db, day) {
  // 1 M records over one UTC day: 500 models, 50 organizations, mixed modalities, tool calls and sizes.
  await db.query(
    `INSERT INTO generations (id, created_at, org_id, workspace_id, key_hash, api_type, model, tokens_prompt, tokens_completion, input_modality, output_modality, tool_calls)
     SELECT 'gen-bench-' || i, $1::timestamptz + (i % 86400) * interval '1 second',
            ('00000000-0000-4000-8000-' || lpad((i % 50)::text, 12, '0'))::uuid, '00000000-0000-4000-8000-000000000000'::uuid, 'k',
            CASE WHEN i % 4 = 0 THEN 'chat' ELSE 'embeddings' END, 'vendor/model-' || lpad((i % 500 + 1)::text, 3, '0'),
            (i::bigint * 7919) % 20000, CASE WHEN i % 4 = 0 THEN 200 ELSE 0 END,
            CASE WHEN i % 17 = 0 THEN 'text+image' WHEN i % 23 = 0 THEN 'audio' ELSE 'text' END,
            CASE WHEN i % 4 = 0 THEN 'text' ELSE 'embeddings' END, CASE WHEN i % 12 = 0 THEN 1 ELSE 0 END
     FROM generate_series(1, $2::int) i`,
    [`${day}T00:00:00Z`, RECORDS],
  );
  await db.query('ANALYZE generations');
}

async function main() {
  const adminUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `switchyard_rankings_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openPostgres({ url: url.toString(), poolSize: 4 });
  const figures = {};
  try {
    await migrate(db);
    const loadStart = Date.now();
    const counts = await loadRollups(db);
    console.log(JSON.stringify({ loaded: counts, seconds: (Date.now() - loadStart) / 1000 }));
    const rollup = new RankingsRollup(db, { lookbackDays: 1, clock: () => NOW });
    // as_of as after a run; no rollup has to run for the queries.
    await db.query(`INSERT INTO rankings_rollup_runs (id, rolled_at, ingest_mark) VALUES (1, $1, now())`, [
      new Date(NOW).toISOString(),
    ]);
    const config = {
      scope: 'organization',
      minOrganizations: 3,
      rollupIntervalMs: 0,
      lookbackDays: 1,
      perKeyPerMinute: 30,
      perOrgPerDay: 500,
      sampleRate: 0,
      sampleQueueMax: 1,
    };
    const faces = catalogFaces([
      { id: 'vendor/model-001', permaslug: 'vendor/model-001-20260101', public: true },
      { id: 'vendor/model-002', permaslug: 'vendor/model-002', public: false },
    ]);
    const service = new RankingsService(db, rollup, faces, config, () => NOW);
    if (process.env.BENCH_SQL) {
      const { rankingsSql } = require('../dist/src/datasets/query');
      const { resolveRankingsRequest } = require('../dist/src/datasets/params');
      console.log(
        JSON.stringify(
          rankingsSql(
            resolveRankingsRequest(JSON.parse(process.env.BENCH_SQL), NOW),
            { kind: 'org', orgId: ORG },
            faces,
          ),
        ),
      );
    }
    const queries = {
      default: {},
      week365: { start_date: formatDay(parseDay(LAST) - 364), end_date: LAST, period: 'week' },
      category: { category: 'programming' },
      category365: {
        category: 'programming',
        start_date: formatDay(parseDay(LAST) - 364),
        end_date: LAST,
        period: 'month',
      },
      modality30: { modality: 'tool_calling' },
    };
    for (const [label, q] of Object.entries(queries)) {
      await service.read(ORG, q); // warm-up
      const runs = [];
      let rows = 0;
      for (let i = 0; i < 5; i++) {
        const { ms, result } = await time(() => service.read(ORG, q));
        runs.push(ms);
        rows = result.data.length;
      }
      figures[label] = {
        median_ms: Number(median(runs).toFixed(1)),
        runs_ms: runs.map((x) => Number(x.toFixed(1))),
        rows,
      };
      console.log(JSON.stringify({ query: label, ...figures[label] }));
    }
    const day = '2026-11-15';
    const loadUsage = await time(() => loadUsageDay(db, day));
    console.log(JSON.stringify({ usage_records: RECORDS, load_seconds: Number((loadUsage.ms / 1000).toFixed(1)) }));
    const rollupRuns = [];
    for (let i = 0; i < 3; i++) {
      const { ms, result } = await time(() => rollup.rollRange(parseDay(day), parseDay(day)));
      rollupRuns.push(ms);
      if (i === 0) {
        const [r] = await db.query(
          `SELECT count(*)::int AS n, SUM(requests)::bigint::text AS requests FROM rankings_daily WHERE day = $1::date`,
          [day],
        );
        console.log(JSON.stringify({ rollup_rows: r.n, rolled_requests: r.requests, days: result.days }));
      }
    }
    figures.rollup1M = {
      median_ms: Number(median(rollupRuns).toFixed(0)),
      runs_ms: rollupRuns.map((x) => Number(x.toFixed(0))),
    };
    console.log(JSON.stringify({ rollup: '1M records, one day', ...figures.rollup1M }));
    const verdict = (ms, target) => (ms <= target ? 'ok' : 'MISSED');
    console.log(
      `\nsummary (Postgres, median of 5 after a warm-up; rollup median of 3; load average ${require('node:os')
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} on ${require('node:os').cpus().length} CPUs):`,
    );
    for (const label of Object.keys(queries))
      console.log(
        `  ${label.padEnd(12)} ${String(figures[label].median_ms).padStart(7)} ms  (${figures[label].rows} rows)  target 100 ms: ${verdict(figures[label].median_ms, 100)}`,
      );
    console.log(
      `  rollup 1M    ${String(figures.rollup1M.median_ms).padStart(7)} ms  target 10000 ms: ${verdict(figures.rollup1M.median_ms, 10000)}`,
    );
  } finally {
    await db.close();
    if (process.env.BENCH_KEEP) console.log(`kept database ${name}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
