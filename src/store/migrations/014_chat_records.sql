-- What a chat completion records beyond an embeddings call (issue 42 item 5): whether it was
-- streamed, the time to its first token, the upstream's own finish reason, whether the gateway
-- counted the tokens itself (no usage from the upstream), and the prompt-cache writes and
-- reasoning tokens the upstream reported. Rows written before this migration read as not
-- streamed, not estimated, zero tokens and unset times.
ALTER TABLE generations
  ADD COLUMN streamed             boolean NOT NULL DEFAULT false,
  ADD COLUMN ttft_ms              integer,
  ADD COLUMN native_finish_reason text,
  ADD COLUMN usage_estimated      boolean NOT NULL DEFAULT false,
  ADD COLUMN cache_write_tokens   integer NOT NULL DEFAULT 0,
  ADD COLUMN reasoning_tokens     integer NOT NULL DEFAULT 0;
