import { writeFileSync } from 'node:fs';
import { asCodeJsonSchema } from '../src/as-code/json-schema.js';

/* Writes docs/api/as-code.schema.json, the JSON Schema of monitoring-as-code files, from shared-protocol's zod schemas. */
const out = new URL('../../docs/api/as-code.schema.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(asCodeJsonSchema(), null, 2)}\n`);
