-- Webhook endpoints (docs/api/webhooks.md). Secrets are kept as issued because
-- every delivery is signed with them (HMAC); a rotated-out secret keeps signing until
-- previous_secret_expires_at. failing_since: first failed attempt after the last success.
CREATE TABLE webhook_endpoints (
  id                          text PRIMARY KEY,     -- we_ id
  user_id                     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url                         text NOT NULL,
  description                 text NULL,
  events                      text[] NOT NULL,
  enabled                     boolean NOT NULL DEFAULT true,
  disabled_reason             text NULL CHECK (disabled_reason IN ('failing', 'user')),
  secret                      text NOT NULL,
  previous_secret             text NULL,
  previous_secret_expires_at  timestamptz NULL,
  failing_since               timestamptz NULL,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_user_idx ON webhook_endpoints (user_id, created_at);
