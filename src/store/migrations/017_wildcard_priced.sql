-- A usage record of a chat model the catalog does not list, served under a provider's wildcard
-- (config/providers.yaml) and priced by its default price rather than a catalog entry's.
-- GET /generation shows it as `wildcard_priced`.
ALTER TABLE generations ADD COLUMN wildcard_priced boolean NOT NULL DEFAULT false;
