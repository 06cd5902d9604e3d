-- Expiry events sent (docs/api/webhooks.md "Events": `ssl.expiring`, `domain.expiring`): one row per
-- (monitor, what expires, threshold crossed). `subject` names what expires: a certificate
-- (`cert:` its SHA-256 fingerprint, or its subject and not_after when the node reports no
-- fingerprint) or a domain registration (`domain:` its expiry time), so a renewed certificate or
-- registration is news again. `threshold_days` is the monitor's `warn_days` or `critical_days`
-- the days left fell below. A crossing is sent once, whatever the number of nodes or rounds that
-- see it; rows go with their monitor.
CREATE TABLE expiry_notices (
  monitor_id     text NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
  subject        text NOT NULL,
  threshold_days int NOT NULL,
  sent_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (monitor_id, subject, threshold_days)
);
