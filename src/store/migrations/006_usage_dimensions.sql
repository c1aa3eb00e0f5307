-- What analytics and the rankings dataset group and filter usage by, beyond what 002 recorded.
-- Rows written before this migration read these as unset (NULL) or as the defaults below.
ALTER TABLE generations
  ADD COLUMN origin            text,
  ADD COLUMN finish_reason     text,
  ADD COLUMN variant           text,
  ADD COLUMN output_modality   text,
  ADD COLUMN tool_calls        integer NOT NULL DEFAULT 0,
  ADD COLUMN is_byok           boolean NOT NULL DEFAULT false,
  ADD COLUMN upstream_cost_usd double precision,
  ADD COLUMN cached_tokens     integer NOT NULL DEFAULT 0;
