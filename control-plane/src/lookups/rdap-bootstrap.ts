import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/*
 * The RDAP bootstrap registry for domain names (RFC 9224 section 4): which RDAP servers serve
 * which top-level domains. Shipped as rdap-dns.json (IANA's dns.json services, copied from the npm
 * package freewhois by rdap-update-bootstrap.ts); an operator refreshes it by pointing
 * VANTAGE_RDAP_BOOTSTRAP_FILE at a current copy of the IANA file.
 */

/** The shipped bootstrap file. */
export const DEFAULT_RDAP_BOOTSTRAP_FILE = fileURLToPath(new URL('./rdap-dns.json', import.meta.url));

const bootstrapSchema = z.object({
  version: z.string(),
  publication: z.string().optional(),
  services: z.array(z.tuple([z.array(z.string()), z.array(z.string().url())])),
});

/** Entry label (lower-case, no dots at the ends) → RDAP base URLs (ending in `/`). */
export type RdapBootstrap = Map<string, string[]>;

/** Parse RFC 9224 JSON text. @throws when it does not have the registry's shape */
export function parseBootstrap(text: string): RdapBootstrap {
  const doc = bootstrapSchema.parse(JSON.parse(text));
  const map: RdapBootstrap = new Map();
  for (const [labels, urls] of doc.services) {
    // RFC 9224 section 3: prefer https; a base URL is used with a trailing slash.
    const bases = [...urls].sort((a, b) => Number(b.startsWith('https:')) - Number(a.startsWith('https:'))).map((u) => (u.endsWith('/') ? u : `${u}/`));
    for (const label of labels) map.set(label.toLowerCase().replace(/^\.+|\.+$/g, ''), bases);
  }
  return map;
}

/** Read a bootstrap file (default the shipped one). @throws when unreadable or malformed */
export function loadBootstrap(file: string = DEFAULT_RDAP_BOOTSTRAP_FILE): RdapBootstrap {
  return parseBootstrap(readFileSync(file, 'utf8'));
}

/**
 * RDAP base URLs for `domain`: the longest entry matching its trailing labels (RFC 9224 section
 * 4: `co.uk` before `uk`). @returns an empty list when no entry matches
 */
export function rdapServersFor(bootstrap: RdapBootstrap, domain: string): string[] {
  const labels = domain.toLowerCase().split('.');
  for (let i = 1; i < labels.length; i++) {
    const hit = bootstrap.get(labels.slice(i).join('.'));
    if (hit) return hit;
  }
  return [];
}
