-- What the embeddings cache saved on a request (USD, at the endpoint prices of its hits): the
-- source of analytics' usage_cache and of the Generation's cache_discount. NULL before this
-- migration, and for requests the cache did not answer.
ALTER TABLE generations ADD COLUMN cache_saved_usd double precision;
