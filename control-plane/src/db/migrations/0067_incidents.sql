-- Incidents (docs/api/status-pages.md "Incidents"): what the owner tells visitors of its status
-- pages, with timestamped updates and an optional postmortem. status_page_ids / component_ids:
-- the pages it shows on and the components it affects (ids of the same owner, checked by the
-- API; a page or component deleted later is left out when read). alert_event_id: the alert
-- event that opened it automatically (an alert policy's open_incident option); it is resolved
-- with that event.
CREATE TABLE incidents (
  id               text PRIMARY KEY,               -- inc_ id
  user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  team_id          text NULL REFERENCES teams (id) ON DELETE RESTRICT,
  title            text NOT NULL,
  status           text NOT NULL CHECK (status IN ('investigating', 'identified', 'monitoring', 'resolved')),
  impact           text NOT NULL CHECK (impact IN ('none', 'minor', 'major', 'critical')),
  status_page_ids  text[] NOT NULL DEFAULT '{}',
  component_ids    text[] NOT NULL DEFAULT '{}',
  alert_event_id   text NULL UNIQUE,
  started_at       timestamptz NOT NULL DEFAULT now(),
  resolved_at      timestamptz NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX incidents_pages_idx ON incidents USING gin (status_page_ids);
CREATE INDEX incidents_user_idx ON incidents (user_id, started_at);
CREATE INDEX incidents_team_idx ON incidents (team_id, started_at) WHERE team_id IS NOT NULL;

CREATE TABLE incident_updates (
  id           text PRIMARY KEY,                   -- incu_ id
  incident_id  text NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  status       text NOT NULL CHECK (status IN ('investigating', 'identified', 'monitoring', 'resolved')),
  message      text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX incident_updates_incident_idx ON incident_updates (incident_id, created_at);

-- One postmortem per incident, Markdown; shown on the pages once published.
CREATE TABLE postmortems (
  incident_id   text PRIMARY KEY REFERENCES incidents (id) ON DELETE CASCADE,
  body_md       text NOT NULL,
  status        text NOT NULL CHECK (status IN ('draft', 'published')),
  published_at  timestamptz NULL,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The alert policy option that opens an incident on these status pages when one of its events
-- fires (and resolves it with the event); empty: none.
ALTER TABLE alert_policies ADD COLUMN incident_status_page_ids text[] NOT NULL DEFAULT '{}';
CREATE INDEX incidents_open_alert_idx ON incidents (alert_event_id) WHERE alert_event_id IS NOT NULL AND status <> 'resolved';
