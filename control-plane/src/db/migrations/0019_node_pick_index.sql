-- Automatic node selection without reading every online node (docs/api/probes.md "Node
-- selection"): each node gets a fixed random key, and online nodes are indexed by country then key.
-- The distinct countries are found by skipping through the index (one probe per country), and a
-- random node of a country is the first one at or after a random key, so a 3-node pick costs a few
-- index probes whether 100 or 100,000 nodes are online. country_key ('' for an unknown country)
-- is a real column, not an index expression, so the planner has statistics for it: with none (an
-- expression of a partial index has none) it misjudged a country as a handful of rows and read
-- and sorted every node of the country instead of the first few in key order.
ALTER TABLE nodes
  ADD COLUMN pick_key double precision NOT NULL DEFAULT random(),
  ADD COLUMN country_key text GENERATED ALWAYS AS (coalesce(country, '')) STORED;
CREATE INDEX nodes_pick_idx ON nodes (country_key, pick_key) WHERE status = 'online' AND removed_at IS NULL;
