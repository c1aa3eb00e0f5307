-- Secrets every replica shares, created once with the schema. `files_cursor` keys the sealing of
-- `GET /files` cursors (see src/files/cursor.ts), so a cursor issued by one replica is read by
-- another, and no cursor shows a listing position (a global upload counter) in the clear.
CREATE TABLE gateway_secrets (
  name    text PRIMARY KEY,
  secret  text NOT NULL
);
INSERT INTO gateway_secrets (name, secret)
VALUES ('files_cursor', replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''));
