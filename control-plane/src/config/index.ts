import { z } from 'zod';
import { accountsConfigSchema } from './accounts.js';
import { artifactsConfigSchema } from './artifacts.js';
import { checksConfigSchema } from './checks.js';
import { consoleConfigSchema } from './console.js';
import { controlChecksConfigSchema } from './control-checks.js';
import { deliveryConfigSchema } from './delivery.js';
import { embeddedConfigSchema } from './embedded.js';
import { infoLookupsConfigSchema } from './info-lookups.js';
import { installConfigSchema } from './install.js';
import { lifecycleConfigSchema } from './lifecycle.js';
import { loadShedConfigSchema } from './load-shed.js';
import { metricsConfigSchema } from './metrics.js';
import { nodesConfigSchema } from './nodes.js';
import { oidcConfigSchema } from './oidc.js';
import { passkeysConfigSchema } from './passkeys.js';
import { passwordsConfigSchema } from './passwords.js';
import { placementConfigSchema } from './placement.js';
import { planConfigSchema } from './plans.js';
import { platformConfigSchema } from './platform.js';
import { probesConfigSchema } from './probes.js';
import { secretsConfigSchema } from './secrets.js';
import { statusPagesConfigSchema } from './status-pages.js';
import { whoisSslConfigSchema } from './whois-ssl.js';
import { mcpConfigSchema } from './mcp.js';
import { agentObsConfigSchema } from './agent-obs.js';
import { billingConfigSchema } from './billing.js';
import { certificatesConfigSchema } from './certificates.js';
import { asCodeConfigSchema } from './as-code.js';
import { leaderboardsConfigSchema } from './leaderboards.js';
import { blogConfigSchema } from './blog.js';

/** The whole control-plane configuration: every section merged; read once in main.ts. */
export const configSchema = platformConfigSchema.extend(nodesConfigSchema.shape)
  .extend(installConfigSchema.shape).extend(deliveryConfigSchema.shape).extend(planConfigSchema.shape)
  .extend(placementConfigSchema.shape).extend(checksConfigSchema.shape).extend(loadShedConfigSchema.shape)
  .extend(artifactsConfigSchema.shape).extend(secretsConfigSchema.shape)
  .extend(accountsConfigSchema.shape)
  .extend(passwordsConfigSchema.shape)
  .extend(passkeysConfigSchema.shape)
  .extend(oidcConfigSchema.shape)
  .extend(lifecycleConfigSchema.shape)
  .extend(probesConfigSchema.shape)
  .extend(controlChecksConfigSchema.shape)
  .extend(embeddedConfigSchema.shape)
  .extend(infoLookupsConfigSchema.shape)
  .extend(statusPagesConfigSchema.shape)
  .extend(whoisSslConfigSchema.shape)
  .extend(consoleConfigSchema.shape)
  .extend(metricsConfigSchema.shape)
  .extend(mcpConfigSchema.shape)
  .extend(agentObsConfigSchema.shape)
  .extend(billingConfigSchema.shape)
  .extend(certificatesConfigSchema.shape)
  .extend(asCodeConfigSchema.shape)
  .extend(leaderboardsConfigSchema.shape)
  .extend(blogConfigSchema.shape);
export type Config = z.infer<typeof configSchema>;

/**
 * Read configuration once from an environment map: `VANTAGE_<FIELD>` in upper case
 * (`VANTAGE_PORT`, `VANTAGE_DATABASE_URL`, …), plus the conventional `DATABASE_URL` and `PORT`.
 * Array fields are comma-separated. Throws a readable error naming the variable on bad input.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(configSchema.shape)) {
    const value = env[`VANTAGE_${key.toUpperCase()}`];
    if (value === undefined || value === '') continue;
    raw[key] = isArrayField(field) ? value.split(',').map((s) => s.trim()).filter(Boolean) : value;
  }
  if (raw.database_url === undefined && env.DATABASE_URL) raw.database_url = env.DATABASE_URL;
  if (raw.port === undefined && env.PORT) raw.port = env.PORT;
  const parsed = configSchema.safeParse({ ...raw, ...overrides });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  VANTAGE_${String(i.path[0] ?? '').toUpperCase()}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

function isArrayField(field: unknown): boolean {
  let f = field as { def?: { type?: string; innerType?: unknown } } | undefined;
  while (f?.def && (f.def.type === 'default' || f.def.type === 'optional')) f = f.def.innerType as typeof f;
  return f?.def?.type === 'array';
}
