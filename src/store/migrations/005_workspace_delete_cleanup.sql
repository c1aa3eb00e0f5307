-- A deleted workspace now takes its files with it, and keys can no longer be created in a
-- workspace being deleted. Clean up what earlier versions could leave behind: files (and, by
-- cascade, their chunks) of deleted workspaces, which no route could reach any more, and keys
-- left live in a deleted workspace by a creation racing the delete (revoked like a deleted key).
DELETE FROM files WHERE workspace_id IN (SELECT id FROM workspaces WHERE deleted_at IS NOT NULL);

UPDATE api_keys SET deleted_at = clock_timestamp(), disabled = true
 WHERE deleted_at IS NULL AND workspace_id IN (SELECT id FROM workspaces WHERE deleted_at IS NOT NULL);
