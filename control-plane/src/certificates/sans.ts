import { domainToASCII, domainToUnicode } from 'node:url';

/** Most SANs one order may carry (Let's Encrypt's limit per certificate). */
export const MAX_SANS = 100;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalise the SANs of an order: each name (Unicode or ASCII, optionally `*.` leftmost) to its
 * ASCII form (IDNA/punycode, RFC 5891, lower case) and back to Unicode; duplicates dropped.
 * @returns `{ sans, sans_unicode }` in the order given, or `{ fields }` naming each bad entry
 */
export function normaliseSans(input: string[]): { sans: string[]; sans_unicode: string[] } | { fields: Array<{ path: string; message: string }> } {
  const sans: string[] = [];
  const fields: Array<{ path: string; message: string }> = [];
  input.forEach((raw, i) => {
    const wild = raw.startsWith('*.');
    const ascii = domainToASCII((wild ? raw.slice(2) : raw).replace(/\.$/, ''));
    const labels = ascii.split('.');
    if (!ascii || ascii.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
      fields.push({ path: `sans[${i}]`, message: 'not a DNS name (a wildcard only as the leftmost label, `*.`)' });
      return;
    }
    const name = wild ? `*.${ascii}` : ascii;
    if (!sans.includes(name)) sans.push(name);
  });
  if (fields.length > 0) return { fields };
  return { sans, sans_unicode: sans.map((s) => (s.startsWith('*.') ? `*.${domainToUnicode(s.slice(2))}` : domainToUnicode(s))) };
}
