import { readFileSync } from 'node:fs';
import t from 'tap';
import { PAGE, agentRows, controlPlaneRows, renderConfigurationPage } from './settings/page.js';

t.test('docs/operators/configuration.md is the page generated from the configuration schemas', async (t) => {
  let current = '';
  try { current = readFileSync(PAGE, 'utf8'); } catch { /* missing: stale */ }
  t.equal(current, renderConfigurationPage(), 'up to date (regenerate with `pnpm docs:settings` after adding or changing a setting)');
});

t.test('every setting has a docstring, the table\'s description', async (t) => {
  const rows = [...controlPlaneRows(), ...agentRows()];
  t.ok(rows.length >= 80, `${rows.length} settings`);
  for (const r of rows) t.ok(r.doc.length >= 20, `${r.env} (${r.field} in ${r.file || 'no file found'}) has a docstring: "${r.doc}"`);
});

t.test('the table gives each setting its variable, type and default', async (t) => {
  const rows = new Map(controlPlaneRows().map((r) => [r.field, r]));
  t.match(rows.get('port'), { env: 'VANTAGE_PORT (or PORT)', type: 'integer 0-65535', default: '`8080`' });
  t.match(rows.get('delivery_allow_cidrs'), { env: 'VANTAGE_DELIVERY_ALLOW_CIDRS', type: 'comma list of CIDRs', default: 'empty' });
  t.match(rows.get('trust_proxy'), { type: 'boolean', default: '`false`' });
  t.match(rows.get('install_bundle_dir'), { default: '`<repo>/installer/dist`' }, 'repository paths shown relative to it');
  t.match(rows.get('geoip_asn_dir'), { doc: /@ip-location-db\/asn package/ }, 'a docstring is read whole (an @ in a sentence is no tag)');
  const agent = new Map(agentRows().map((r) => [r.field, r]));
  t.match(agent.get('allow_cidrs'), { env: 'VANTAGE_AGENT_ALLOW_CIDRS', type: 'comma list of CIDRs' });
});

/** The `vantage` CLI's environment variables (docs/api/as-code.md "The vantage CLI"). */
const CLI_VARIABLES = new Set(['VANTAGE_URL', 'VANTAGE_API_KEY', 'VANTAGE_PASSWORD', 'VANTAGE_CONFIG_DIR']);

t.test('no setting is read from the environment outside the configuration schemas', async (t) => {
  // Configuration is read once through the schemas, so every setting is in the generated table.
  // VANTAGE_AGENT_CONFIG names the agent's config file (stated on the page); the `vantage` CLI's
  // own variables (a user's login, not a server setting) are stated in docs/api/as-code.md; tests
  // and their helpers read their own variables.
  const { readdirSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('./settings/page.js');
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules' && name !== 'test-support') walk(path);
      } else if (/\.(ts|mjs)$/.test(name) && !/\.test\.ts$|test-harness\.ts$/.test(name)) {
        for (const m of readFileSync(path, 'utf8').matchAll(/env\.(VANTAGE_[A-Z0-9_]+)/g)) {
          if (m[1] !== 'VANTAGE_AGENT_CONFIG' && !(path.includes('/cli/vantage/') && CLI_VARIABLES.has(m[1]!))) found.push(`${path.slice(ROOT.length)}: ${m[1]}`);
        }
      }
    }
  };
  for (const dir of ['control-plane/src', 'control-plane/bin', 'node-agent/src']) walk(join(ROOT, dir));
  t.same(found, [], 'settings read straight from the environment');
});
