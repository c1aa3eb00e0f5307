-- What the embeddings cache saved on a request (USD, at the endpoint prices of its hits): the
-- source of analytics' usage_cache and of the Generation's cache_discount. NULL before this
-- migration, and for requests the cache did not answer.
ALTER TABLE generations ADD COLUMN cache_saved_usd double precision;

-- The analytics rollup's record of how far it has seen usage rows arrive (the database's clock):
-- rows ingested after it, for hours already rolled up (an outbox drained after an outage), have
-- their hours recomputed on the next refresh.
ALTER TABLE usage_rollup_watermark ADD COLUMN ingested_until timestamptz;
