-- Embeddings cache switch per workspace: true/false override the gateway's default
-- (`embeddingsCache.enabled`), NULL follows it.
ALTER TABLE workspaces ADD COLUMN embeddings_cache_enabled boolean;
