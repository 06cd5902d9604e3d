// Writes docs/operators/configuration.md from the configuration schemas (`pnpm docs:settings`);
// `--check` only compares and exits 1 when the page is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { PAGE, renderConfigurationPage } from './page.js';

const page = renderConfigurationPage();
let current = '';
try { current = readFileSync(PAGE, 'utf8'); } catch { /* not written yet */ }
if (process.argv.includes('--check')) {
  if (current !== page) {
    process.stderr.write(`${PAGE} is stale: run pnpm docs:settings\n`);
    process.exitCode = 1;
  }
} else if (current !== page) {
  writeFileSync(PAGE, page);
  process.stdout.write(`wrote ${PAGE}\n`);
} else {
  process.stdout.write(`${PAGE} is up to date\n`);
}
