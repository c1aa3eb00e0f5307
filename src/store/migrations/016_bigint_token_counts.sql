-- Token counts of a usage record as bigint: an integer column refused any count above 2^31 - 1,
-- so such a record could not be written at all while its cost stayed in the budget counters.
-- The gateway bounds every count before it is stored (src/usage/bounds.ts, src/usage/storable.ts);
-- these columns hold whatever it lets through. The hourly rollup's sums are bigint already.
-- Rewrites the table: on a large one this takes a while, and usage waits in the outbox meanwhile.
ALTER TABLE generations
  ALTER COLUMN tokens_prompt TYPE bigint,
  ALTER COLUMN tokens_completion TYPE bigint,
  ALTER COLUMN cached_tokens TYPE bigint,
  ALTER COLUMN cache_write_tokens TYPE bigint,
  ALTER COLUMN reasoning_tokens TYPE bigint;
