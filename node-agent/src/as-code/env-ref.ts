import { z } from 'zod';

/** A secret given by the name of an environment variable: `{ env: "OPS_HOOK_SECRET" }`. Never inline. */
export const envRefSchema = z.strictObject({
  env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
}).describe('A secret read from this environment variable when the file is applied');
export type EnvRef = z.infer<typeof envRefSchema>;

/** Environment variables a resolution reads (the CLI's process.env at start, the control plane's at start). */
export type Env = Record<string, string | undefined>;

/** The env variable an exported secret refers to: `VANTAGE_SECRET_<RESOURCE>_<FIELD>`, upper snake case. */
export function secretEnvName(resource: string, field: string): string {
  const part = (s: string) => s.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  return `VANTAGE_SECRET_${part(resource) || 'CHANNEL'}_${part(field)}`;
}
