-- Information lookups (docs/api/lookups.md).

-- Metered lookups per access key (API key or PAT) and UTC day: what a key's calls to metered
-- lookups (IP reputation) count against the account's quota and bill, read back through
-- GET /v1/account/lookup-usage. Removed with the key's account.
CREATE TABLE lookup_usage (
  access_key_id  text NOT NULL REFERENCES access_keys (id) ON DELETE CASCADE,
  lookup         text NOT NULL,
  day            date NOT NULL,
  count          bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (access_key_id, lookup, day)
);

-- Mainland-China ICP filing records loaded by an operator (import command or
-- POST /v1/admin/icp-records), one per registrable domain; never scraped.
CREATE TABLE icp_records (
  domain        text PRIMARY KEY,                   -- registrable domain, lower case (Public Suffix List)
  icp_number    text NOT NULL,
  company       text NOT NULL,
  license_type  text,
  type          text,
  filed_at      date,
  source        text,
  inquiry_url   text,
  imported_at   timestamptz NOT NULL DEFAULT now()
);
