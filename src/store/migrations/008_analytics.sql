-- Analytics: indexes for organization-wide time-window scans, an hourly rollup of usage for the
-- long-range (365-day) metrics and dimensions, workspace classifiers and the tags they give
-- sampled generations.

-- Every analytics query filters on (org_id, created_at). The B-tree from 002 serves narrow windows;
-- BRIN (a few pages per table) lets the retention job and wide scans skip whole block ranges, as
-- rows arrive roughly in created_at order.
CREATE INDEX IF NOT EXISTS generations_created_brin ON generations USING brin (created_at) WITH (autosummarize = on);

-- One row per (organization, hour, workspace, key, model, variant, app): the additive sums the
-- 365-day metrics need. Recomputed per hour from raw rows by an idempotent job
-- (analytics/rollup.ts), so re-running it or picking up late records never double-counts.
CREATE TABLE usage_rollup_hourly (
  org_id             uuid NOT NULL,
  hour               timestamptz NOT NULL,
  workspace_id       uuid NOT NULL,
  key_hash           text NOT NULL,
  model              text NOT NULL,
  variant            text NOT NULL DEFAULT '',
  app                text NOT NULL DEFAULT '',
  request_count      bigint NOT NULL,
  byok_request_count bigint NOT NULL,
  tokens_prompt      bigint NOT NULL,
  tokens_completion  bigint NOT NULL,
  cached_tokens      bigint NOT NULL,
  cost_usd           double precision NOT NULL,
  byok_usd           double precision NOT NULL,
  upstream_usd       double precision NOT NULL,
  PRIMARY KEY (hour, org_id, workspace_id, key_hash, model, variant, app)
);
-- Queries read one organization's hours; the refresh replaces whole hours of every organization (the key above).
CREATE INDEX usage_rollup_hourly_org ON usage_rollup_hourly (org_id, hour);

-- The rollup holds every hour in [from_hour, until_hour) completely (as of its last refresh);
-- queries read hours in that range from the rollup and everything else from raw rows.
CREATE TABLE usage_rollup_watermark (
  id            boolean PRIMARY KEY DEFAULT true CHECK (id),
  from_hour     timestamptz NOT NULL,
  until_hour    timestamptz NOT NULL,
  refreshed_at  timestamptz NOT NULL
);

-- Workspace classifiers: named dimensions, each an ordered list of rules (a tag value and the
-- keywords or regular expressions that select it). Rules are JSON validated by the API.
CREATE TABLE classifiers (
  id            uuid PRIMARY KEY,
  org_id        uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name          text NOT NULL,
  active        boolean NOT NULL DEFAULT true,
  sample_rate   double precision NOT NULL CHECK (sample_rate >= 0 AND sample_rate <= 1),
  dimensions    jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at    timestamptz
);
CREATE INDEX classifiers_workspace ON classifiers (workspace_id, created_at);

-- One row per (generation, classifier, dimension) of a sampled generation; value NULL = no rule
-- matched (unset). Keyed by the generation id (the usage record id), written after the answer.
CREATE TABLE generation_tags (
  generation_id  text NOT NULL,
  classifier_id  uuid NOT NULL REFERENCES classifiers(id) ON DELETE CASCADE,
  dimension      text NOT NULL,
  org_id         uuid NOT NULL,
  value          text,
  created_at     timestamptz NOT NULL,
  PRIMARY KEY (generation_id, classifier_id, dimension)
);
CREATE INDEX generation_tags_classifier_time ON generation_tags (classifier_id, created_at);
