-- Usage records ("generations"): the durable truth for spend, key usage and analytics.
-- Written in batches from the usage outbox, idempotent on id.
CREATE TABLE generations (
  id                 text PRIMARY KEY,
  created_at         timestamptz NOT NULL,
  org_id             uuid NOT NULL,
  workspace_id       uuid NOT NULL,
  key_hash           text NOT NULL,
  end_user           text,
  session_id         text,
  api_type           text NOT NULL DEFAULT 'embeddings',
  model              text NOT NULL,
  provider           text,
  upstream_id        text,
  tokens_prompt      integer NOT NULL DEFAULT 0,
  tokens_completion  integer NOT NULL DEFAULT 0,
  cost_usd           double precision NOT NULL DEFAULT 0,
  latency_ms         integer,
  generation_time_ms integer,
  attempts           integer NOT NULL DEFAULT 1,
  status             text NOT NULL DEFAULT 'ok',
  input_modality     text,
  user_agent         text,
  http_referer       text,
  app_title          text
);
CREATE INDEX generations_workspace_time ON generations (workspace_id, created_at);
CREATE INDEX generations_key_time ON generations (key_hash, created_at);
CREATE INDEX generations_org_time ON generations (org_id, created_at);
