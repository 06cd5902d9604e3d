/** The badge class of a certificate, order or credential state: green when it is good, red when it failed, neutral otherwise. */
export function toneOf(status: string): string {
  if (status === 'issued' || status === 'valid') return 'badge state-up';
  if (status === 'failed' || status === 'invalid' || status === 'revoked' || status === 'expired') return 'badge state-down';
  return 'badge';
}

/** Whole days from now until `iso` (negative once past), for a certificate's `not_after`. */
export function daysLeft(iso: string, now = Date.now()): number {
  return Math.floor((Date.parse(iso) - now) / 86_400_000);
}
