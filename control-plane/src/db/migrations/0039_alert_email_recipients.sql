-- Recipients of e-mail alert channels (docs/api/alerting.md "E-mail recipients"), per account:
-- an address of an account's e-mail channel receives alerts only once its recipient confirmed
-- through the opt-in e-mail (or it is the account's own verified address), and never after it
-- unsubscribed. Kept per account, not per channel, so an unsubscribed address stays so when the
-- channel is deleted and made again. An address of a channel without a row here is pending with
-- no opt-in e-mail sent (channels made before this table): a resend sends it one.
CREATE TABLE alert_email_recipients (
  user_id            text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  address            text NOT NULL CHECK (address = lower(address)),
  state              text NOT NULL CHECK (state IN ('pending', 'confirmed', 'unsubscribed')),
  -- sha256 (hex) of the live opt-in token; a resend replaces it, so only the newest link works.
  opt_in_hash        text NULL UNIQUE,
  opt_in_expires_at  timestamptz NULL,
  opt_in_sent_at     timestamptz NULL,
  confirmed_at       timestamptz NULL,
  unsubscribed_at    timestamptz NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, address),
  CHECK ((opt_in_hash IS NULL) = (opt_in_expires_at IS NULL))
);
