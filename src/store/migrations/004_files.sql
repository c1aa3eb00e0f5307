-- Uploaded files: one metadata row per file, content in chunks (the Postgres FileStorage backend).
-- `seq` orders a workspace's files for cursor pagination (created_at alone can tie).
CREATE TABLE files (
  id            text PRIMARY KEY,
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  org_id        uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id  uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  filename      text NOT NULL,
  mime_type     text NOT NULL,
  size_bytes    bigint NOT NULL CHECK (size_bytes > 0),
  created_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX files_listing ON files (workspace_id, seq);

-- Content is written before its metadata row inside the upload transaction, so the reference is
-- checked at commit (DEFERRABLE); deleting the metadata row removes the chunks (CASCADE), so no
-- path can leave orphaned content behind.
CREATE TABLE file_chunks (
  file_id  text NOT NULL REFERENCES files(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  seq      integer NOT NULL CHECK (seq >= 0),
  data     bytea NOT NULL,
  PRIMARY KEY (file_id, seq)
);
