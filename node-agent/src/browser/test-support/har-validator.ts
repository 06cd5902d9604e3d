import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A validator for HAR 1.2 built from the har-schema JSON Schemas (draft-06; ajv 8 reads them
 * without their $schema). @returns a function giving null for a valid archive, else ajv's errors
 */
export function harValidator(): (har: unknown) => string | null {
  const Ajv = require('ajv').default as new (o: object) => { addSchema(s: object, key: string): void; validate(key: string, data: unknown): boolean; errorsText(): string };
  const addFormats = require('ajv-formats').default as (a: unknown) => void;
  const schemas = require('har-schema') as Record<string, { $schema?: string }>;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  for (const [name, schema] of Object.entries(schemas)) {
    const { $schema: _ignored, ...rest } = schema;
    ajv.addSchema(rest, `${name}.json`);
  }
  return (har) => (ajv.validate('har.json', har) ? null : ajv.errorsText());
}
