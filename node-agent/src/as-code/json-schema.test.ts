import { readFileSync } from 'node:fs';
import t from 'tap';
import { asCodeJsonSchema } from './json-schema.js';

t.test('docs/api/as-code.schema.json is generated from the current schemas (pnpm docs:as-code-schema)', async (t) => {
  const stored = readFileSync(new URL('../../../docs/api/as-code.schema.json', import.meta.url), 'utf8');
  t.equal(stored, `${JSON.stringify(asCodeJsonSchema(), null, 2)}\n`);
});
