-- Operator administrators (docs/operators/self-hosting.md): an account is an
-- administrator when it is marked here (the first account of an empty deployment is) or when its
-- e-mail is listed in VANTAGE_ADMIN_EMAILS. Admin routes live under /v1/admin and every change
-- they make is written to admin_audit.
ALTER TABLE users ADD COLUMN is_admin boolean NOT NULL DEFAULT false;

CREATE TABLE admin_audit (
  id            bigserial PRIMARY KEY,
  at            timestamptz NOT NULL DEFAULT now(),
  actor_user_id text NOT NULL,
  action        text NOT NULL,             -- e.g. account.create, node.platform
  target_id     text,                      -- the u_/node_/… id acted on
  details       jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX admin_audit_at ON admin_audit (at DESC);
