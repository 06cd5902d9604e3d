-- Leaderboards (docs/api/leaderboards.md): monitors the operator marks as leaderboard monitors (a
-- vendor and a category each), monthly vendor reports computed from them (draft → reviewing →
-- published → archived; a published report is never deleted, only corrected by an errata notice),
-- and vendors' opt-out requests (pending → approved or rejected).
CREATE TABLE leaderboard_monitors (
  monitor_id   text PRIMARY KEY REFERENCES monitors (id) ON DELETE CASCADE,
  vendor_name  text NOT NULL,
  category     text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX leaderboard_monitors_vendor_idx ON leaderboard_monitors (lower(vendor_name));

CREATE TABLE leaderboard_reports (
  id                   text PRIMARY KEY,                -- lb_ id
  status               text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'reviewing', 'published', 'archived')),
  period_year          integer NOT NULL,
  period_month         integer NOT NULL CHECK (period_month BETWEEN 1 AND 12),
  methodology_version  text NOT NULL,
  entries              jsonb NOT NULL DEFAULT '[]',     -- computed vendor rows
  excluded_vendors     text[] NOT NULL DEFAULT '{}',
  data_from            timestamptz NOT NULL,
  data_to              timestamptz NOT NULL,
  computed_at          timestamptz NOT NULL,
  pdf                  bytea NULL,                      -- signed when the report goes to review
  content_hash         text NULL,
  signed_at            timestamptz NULL,
  published_at         timestamptz NULL,
  errata_pdf           bytea NULL,
  errata_reason        text NULL,
  errata_at            timestamptz NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
-- One live report per month; an archived one leaves room for a new one.
CREATE UNIQUE INDEX leaderboard_reports_period ON leaderboard_reports (period_year, period_month) WHERE status <> 'archived';
CREATE INDEX leaderboard_reports_public_idx ON leaderboard_reports (period_year DESC, period_month DESC, id DESC) WHERE status IN ('published', 'archived');

CREATE TABLE leaderboard_opt_outs (
  id                      text PRIMARY KEY,             -- lbo_ id
  vendor_name             text NOT NULL,
  applicant_email         text NOT NULL,
  identity_proof_url      text NOT NULL,
  applicant_organization  text NULL,
  contact_phone           text NULL,
  reason                  text NULL,
  status                  text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  decided_at              timestamptz NULL,
  decided_by              text NULL,
  decision_reason         text NULL,
  created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX leaderboard_opt_outs_status_idx ON leaderboard_opt_outs (status, created_at DESC, id DESC);
