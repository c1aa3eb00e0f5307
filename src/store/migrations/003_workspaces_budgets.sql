-- Workspace settings of the reference Workspace object, soft deletion (usage history keeps
-- resolving a deleted workspace's name), and workspace spending budgets.
ALTER TABLE workspaces ADD COLUMN default_text_model text;
ALTER TABLE workspaces ADD COLUMN default_image_model text;
ALTER TABLE workspaces ADD COLUMN default_provider_sort text;
ALTER TABLE workspaces ADD COLUMN is_observability_io_logging_enabled boolean NOT NULL DEFAULT false;
ALTER TABLE workspaces ADD COLUMN is_observability_broadcast_enabled boolean NOT NULL DEFAULT false;
ALTER TABLE workspaces ADD COLUMN is_data_discount_logging_enabled boolean NOT NULL DEFAULT false;
ALTER TABLE workspaces ADD COLUMN io_logging_sampling_rate double precision NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN io_logging_api_key_ids jsonb;
ALTER TABLE workspaces ADD COLUMN disabled_server_tools jsonb;
ALTER TABLE workspaces ADD COLUMN include_byok_in_budgets boolean NOT NULL DEFAULT false;
ALTER TABLE workspaces ADD COLUMN deleted_at timestamptz;

-- A deleted workspace frees its slug: uniqueness only among live workspaces of the organization.
ALTER TABLE workspaces DROP CONSTRAINT workspaces_org_id_slug_key;
CREATE UNIQUE INDEX workspaces_live_slug ON workspaces (org_id, slug) WHERE deleted_at IS NULL;

CREATE TABLE workspace_budgets (
  id              uuid PRIMARY KEY,
  workspace_id    uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  reset_interval  text NOT NULL CHECK (reset_interval IN ('daily', 'weekly', 'monthly', 'lifetime')),
  limit_usd       double precision NOT NULL CHECK (limit_usd > 0),
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (workspace_id, reset_interval)
);
