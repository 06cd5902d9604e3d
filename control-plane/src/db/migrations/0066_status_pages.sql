-- Status pages (docs/api/status-pages.md): a page publishes the state and daily uptime of its
-- components (a monitor or a monitor group each) at /status/{slug} and, when set, on a custom
-- domain. Owned like every resource (0046_teams.sql): its creator and, when team_id is set, its
-- team. slug and custom_domain are unique across the deployment (both name a public address).
-- password_hash: argon2id of the visitors' password of a page that is not public.
CREATE TABLE status_pages (
  id             text PRIMARY KEY,                 -- sp_ id
  user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id        text NULL REFERENCES teams (id) ON DELETE RESTRICT,
  slug           text NOT NULL UNIQUE,
  title          text NOT NULL,
  description    text NOT NULL DEFAULT '',
  custom_domain  text NULL UNIQUE,
  theme          text NOT NULL DEFAULT 'system' CHECK (theme IN ('system', 'light', 'dark')),
  logo_url       text NULL,
  is_public      boolean NOT NULL DEFAULT true,
  password_hash  text NULL,
  history_days   integer NOT NULL DEFAULT 90 CHECK (history_days BETWEEN 1 AND 365),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX status_pages_team_idx ON status_pages (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX status_pages_user_idx ON status_pages (user_id);

-- A page's components in display order; deleting the monitor or group removes its component.
-- display_name NULL: the monitor's or group's own name.
CREATE TABLE status_page_components (
  id            text PRIMARY KEY,                  -- spc_ id
  page_id       text NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
  monitor_id    text NULL REFERENCES monitors (id) ON DELETE CASCADE,
  group_id      text NULL REFERENCES monitor_groups (id) ON DELETE CASCADE,
  display_name  text NULL,
  section       text NOT NULL DEFAULT '',
  position      integer NOT NULL,
  CHECK ((monitor_id IS NULL) <> (group_id IS NULL))
);
CREATE INDEX status_page_components_page_idx ON status_page_components (page_id, position);

-- Visitors subscribed to a page's incident notices (docs/api/status-pages.md "Subscribers"):
-- by e-mail (pending until the address confirms the opt-in link: double opt-in) or by webhook
-- (signed per Standard Webhooks with `secret`, shown once). An unsubscribed row stays, so the
-- address is never sent another opt-in e-mail by a stranger's request. Links carry an HMAC of the
-- subscriber id (no token is stored).
CREATE TABLE status_page_subscribers (
  id            text PRIMARY KEY,                  -- sps_ id
  page_id       text NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
  kind          text NOT NULL CHECK (kind IN ('email', 'webhook')),
  address       text NOT NULL,                     -- e-mail address (lower case) or webhook URL
  secret        text NULL,                         -- whsec_ signing secret of a webhook
  state         text NOT NULL CHECK (state IN ('pending', 'confirmed', 'unsubscribed')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  confirmed_at  timestamptz NULL,
  UNIQUE (page_id, kind, address)
);
CREATE INDEX status_page_subscribers_page_idx ON status_page_subscribers (page_id) WHERE state = 'confirmed';

-- Maintenance notices sent to a page's subscribers: one per page and window occurrence, claimed
-- by inserting this row in the transaction that queues the notices (any number of instances).
CREATE TABLE status_page_maintenance_notices (
  page_id           text NOT NULL REFERENCES status_pages (id) ON DELETE CASCADE,
  window_id         text NOT NULL REFERENCES maintenance_windows (id) ON DELETE CASCADE,
  occurrence_start  timestamptz NOT NULL,
  sent_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (page_id, window_id, occurrence_start)
);
