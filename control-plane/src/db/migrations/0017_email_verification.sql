-- E-mail verification (docs/api/accounts.md): when the last verification e-mail was sent, so a
-- resend can be refused until email_verification_resend_s has passed.
ALTER TABLE users ADD COLUMN email_verification_sent_at timestamptz NULL;
