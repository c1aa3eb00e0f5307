-- Chat figures in the hourly usage rollup (reasoning tokens, and the completion tokens and
-- generation time of chat rows that report a generation time, for output tokens per second).
-- Hours rolled up before this migration held no chat rows, so zero is their true value.
ALTER TABLE usage_rollup_hourly
  ADD COLUMN reasoning_tokens      bigint NOT NULL DEFAULT 0,
  ADD COLUMN chat_output_tokens    bigint NOT NULL DEFAULT 0,
  ADD COLUMN chat_generation_ms    bigint NOT NULL DEFAULT 0;

-- Latency and time-to-first-token histograms per (organization, hour, provider, api type):
-- log-scale buckets (analytics/histogram.ts), kept as two parallel arrays (occupied buckets and
-- their counts) so a week of one organization is a few rows per hour. Percentile queries over
-- provider / api_type merge them instead of sorting raw rows. Recomputed with the usage rollup
-- (same hours, same transaction, same watermark), so the two always cover the same hours.
CREATE TABLE latency_hist_hourly (
  org_id    uuid NOT NULL,
  hour      timestamptz NOT NULL,
  provider  text NOT NULL DEFAULT '',
  api_type  text NOT NULL,
  kind      smallint NOT NULL,
  buckets   smallint[] NOT NULL,
  counts    bigint[] NOT NULL,
  PRIMARY KEY (hour, org_id, provider, api_type, kind)
);
CREATE INDEX latency_hist_hourly_org ON latency_hist_hourly (org_id, hour);

-- Hours rolled up before this migration have no histograms: queries read raw rows for them
-- (exact, as before) and the histograms only from `hist_from` on. Recomputing those hours instead
-- could lose rollup sums whose raw rows retention already deleted.
ALTER TABLE usage_rollup_watermark ADD COLUMN hist_from timestamptz;
UPDATE usage_rollup_watermark SET hist_from = until_hour;
