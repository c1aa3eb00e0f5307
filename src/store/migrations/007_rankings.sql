-- The rankings dataset (GET /datasets/rankings-daily): daily rollups of the usage records, read by
-- every query; the raw generations are only read by the rollup (src/datasets/rollup.ts).

-- The rollup reads one UTC day of generations at a time.
CREATE INDEX IF NOT EXISTS generations_created_at ON generations (created_at);

-- When a usage record reached the database, so the rollup re-rolls the days of records written
-- late (an outbox drained after an outage). Set by the default on every insert or COPY; rows
-- written before this migration keep NULL (the first rollup covers them). Added without a
-- default first, then the default set, so existing rows are not rewritten.
ALTER TABLE generations ADD COLUMN ingested_at timestamptz;
ALTER TABLE generations ALTER COLUMN ingested_at SET DEFAULT now();
CREATE INDEX generations_ingested_at ON generations (ingested_at);

-- Tokens per day × organization × model × the dataset's facets. Facets are stored as the
-- filters need them: image/audio among the input modalities, the output modality (embeddings
-- for embeddings calls, also for rows written before migration 006), tool calls, and the
-- context bucket of the prompt tokens (src/datasets/buckets.ts).
CREATE TABLE rankings_daily (
  day            date    NOT NULL,
  org_id         uuid    NOT NULL,
  model          text    NOT NULL,
  image_input    boolean NOT NULL,
  audio_input    boolean NOT NULL,
  output_modality text   NOT NULL,
  tool_calling   boolean NOT NULL,
  context_bucket text    NOT NULL,
  tokens         bigint  NOT NULL,
  requests       bigint  NOT NULL,
  PRIMARY KEY (day, org_id, model, image_input, audio_input, output_modality, tool_calling, context_bucket)
);
CREATE INDEX rankings_daily_org_day ON rankings_daily (org_id, day);

-- Tokens per day × organization × model, all facets summed: what the unfiltered queries read.
CREATE TABLE rankings_daily_totals (
  day    date   NOT NULL,
  org_id uuid   NOT NULL,
  model  text   NOT NULL,
  tokens bigint NOT NULL,
  PRIMARY KEY (org_id, day, model)
);
CREATE INDEX rankings_daily_totals_day ON rankings_daily_totals (day);

-- The same per ISO week (Monday) and per month (first day), summed from the daily totals:
-- whole weeks and months of a long window are read from here. period is 'week' or 'month'.
-- rank is the model's rank() by tokens in its organization's bucket (ties share a rank), so a
-- query reads only the rows that can reach the top 50; the rest is the bucket's sum (below)
-- less what was read.
CREATE TABLE rankings_period_totals (
  period text    NOT NULL,
  bucket date    NOT NULL,
  org_id uuid    NOT NULL,
  model  text    NOT NULL,
  tokens bigint  NOT NULL,
  rank   integer NOT NULL,
  PRIMARY KEY (org_id, period, bucket, model)
);
CREATE INDEX rankings_period_totals_rank ON rankings_period_totals (org_id, period, rank, bucket);
CREATE TABLE rankings_period_sums (
  period text   NOT NULL,
  bucket date   NOT NULL,
  org_id uuid   NOT NULL,
  tokens bigint NOT NULL,
  PRIMARY KEY (org_id, period, bucket)
);

-- A sample of requests with their input classified after the answer was sent: one row per
-- sampled request, weighted by 1 / the sampling rate in force when it was taken.
CREATE TABLE rankings_samples (
  id            bigserial PRIMARY KEY,
  sampled_at    timestamptz NOT NULL,
  org_id        uuid NOT NULL,
  model         text NOT NULL,
  tokens        integer NOT NULL,
  weight        double precision NOT NULL,
  language_type text NOT NULL,
  category      text
);
CREATE INDEX rankings_samples_time ON rankings_samples (sampled_at);

-- Upsampled tokens per ISO week (Monday) × organization × model × tag: what category and
-- language_type queries read. dimension is 'category' or 'language_type'.
CREATE TABLE rankings_weekly_tags (
  week      date   NOT NULL,
  org_id    uuid   NOT NULL,
  model     text   NOT NULL,
  dimension text   NOT NULL,
  value     text   NOT NULL,
  tokens    bigint NOT NULL,
  PRIMARY KEY (org_id, dimension, value, week, model)
);
CREATE INDEX rankings_weekly_tags_week ON rankings_weekly_tags (dimension, value, week);

-- Which days the rollup has computed, and when: as_of is the latest finished run.
CREATE TABLE rankings_rollup_days (
  day        date PRIMARY KEY,
  rolled_at  timestamptz NOT NULL
);
-- The latest run: its time (meta.as_of) and the database time it started at (ingest_mark): the
-- next run re-rolls the days of records ingested since (less a margin for slow transactions).
CREATE TABLE rankings_rollup_runs (
  id          integer PRIMARY KEY,
  rolled_at   timestamptz NOT NULL,
  ingest_mark timestamptz NOT NULL
);
