-- The installation-wide rankings as published (src/datasets/publish.ts): each completed UTC day
-- (exact datasets) and ISO week (sampled datasets) is published once, with its noise drawn then
-- and stored, and never changed afterwards; installation-scope queries read only these tables.

-- Which units are published, and when. kind is 'day' (the exact datasets) or 'week' (the sampled
-- category and language_type datasets, keyed by the week's Monday).
CREATE TABLE rankings_published_units (
  kind         text        NOT NULL,
  unit         date        NOT NULL,
  published_at timestamptz NOT NULL,
  PRIMARY KEY (kind, unit)
);

-- One row per published cell: a unit × dataset × model named by the dominance rule (model NULL:
-- the unit's `other` cell), with its clamped, noisy tokens (may be negative: queries sum the
-- cells of a bucket and show only positive totals). dataset is the filter's canonical key
-- (`all`, `modality=text`, `context_bucket=1K`, `modality=text&context_bucket=1K`,
-- `category=health`, `language_type=natural`).
CREATE TABLE rankings_published (
  unit    date   NOT NULL,
  dataset text   NOT NULL,
  model   text,
  tokens  bigint NOT NULL
);
CREATE INDEX rankings_published_dataset_unit ON rankings_published (dataset, unit);
