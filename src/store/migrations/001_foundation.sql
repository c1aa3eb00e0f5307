-- Organizations, users and their membership, workspaces, workspace members, API keys.
CREATE TABLE organizations (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id          text PRIMARY KEY,
  email       text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organization_members (
  org_id      uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('admin', 'member')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);

CREATE TABLE workspaces (
  id           uuid PRIMARY KEY,
  org_id       uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name         text NOT NULL,
  slug         text NOT NULL,
  description  text,
  is_default   boolean NOT NULL DEFAULT false,
  created_by   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz,
  UNIQUE (org_id, slug)
);
CREATE UNIQUE INDEX workspaces_one_default ON workspaces (org_id) WHERE is_default;

CREATE TABLE workspace_members (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id       text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role          text NOT NULL CHECK (role IN ('admin', 'member')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, user_id)
);

-- Only the SHA-256 hex of a secret is stored; `label` is a masked preview safe to show.
CREATE TABLE api_keys (
  hash                   text PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
  org_id                 uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id           uuid NOT NULL REFERENCES workspaces(id),
  name                   text NOT NULL,
  label                  text NOT NULL,
  is_management          boolean NOT NULL DEFAULT false,
  disabled               boolean NOT NULL DEFAULT false,
  limit_usd              double precision CHECK (limit_usd IS NULL OR limit_usd >= 0),
  limit_reset            text CHECK (limit_reset IN ('daily', 'weekly', 'monthly')),
  include_byok_in_limit  boolean NOT NULL DEFAULT false,
  expires_at             timestamptz,
  creator_user_id        text,
  external_user          text,
  external_api_key_hash  text,
  created_at             timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at             timestamptz,
  deleted_at             timestamptz
);
CREATE INDEX api_keys_listing ON api_keys (org_id, workspace_id, created_at DESC) WHERE deleted_at IS NULL;
