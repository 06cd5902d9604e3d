/* `node:url` for the browser build (shared-protocol's look-up helpers import it; the console never calls them). Aliased in vite.config.ts. */

/** The ASCII (punycode) form of a domain name, as the WHATWG URL parser gives it; '' when invalid (Node's `url.domainToASCII`). */
export function domainToASCII(domain: string): string {
  try { return new URL(`http://${domain}/`).hostname; } catch { return ''; }
}
