-- Dashboard sessions remember the generation of the key they were opened with; disabling or
-- deleting a key moves it on, so the key's sessions end for good: re-enabling the key later does
-- not bring them back (issue 43 item 9). A counter, not a timestamp, so no clock is compared.
ALTER TABLE api_keys ADD COLUMN session_generation integer NOT NULL DEFAULT 0;
