-- Check outputs stored compressed (docs/architecture/checks.md "Storage"): the output's JSON text
-- as raw DEFLATE primed with a dictionary of typical outputs, behind a format byte
-- (checks/output-codec.ts). Rows written without it (control-plane checks) keep `output` (jsonb);
-- node results fill `output_z` and leave `output` null. Postgres compresses nothing under 2 kB, and
-- the output is most of a row: a ping check's row shrinks from about 630 to about 130 bytes.
-- EXTERNAL: the bytes are compressed already, so a large one is moved out of line as it is.
ALTER TABLE checks ADD COLUMN output_z bytea NULL;
ALTER TABLE checks ALTER COLUMN output_z SET STORAGE EXTERNAL;
