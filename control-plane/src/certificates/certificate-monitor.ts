import type { CertificateMonitorRequest } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';
import type { Owner } from '../teams/authorize.js';
import type { MonitorRow } from '../monitors/monitors.db.js';
import type { monitorWriter } from '../monitors/writer.js';
import type { CertificateRow } from './certificates.db.js';
import { normaliseSans } from './sans.js';

/*
 * An ssl_expiry monitor of an issued certificate, in one call (docs/api/certificates.md "A monitor
 * of a certificate"). The monitor is an ordinary one: its checks go down when fewer than
 * `min_days_remaining` days are left (the alert policies bound to it fire: alerting), and it
 * raises `ssl.expiring` at `warn_days` and `critical_days`.
 */

/** Whether SAN `san` (ASCII; `*.` only leftmost) covers `host`: equal, or a wildcard matching exactly one leftmost label (RFC 6125 §6.4.3). */
export function sanCovers(san: string, host: string): boolean {
  if (!san.startsWith('*.')) return san === host;
  const suffix = san.slice(1);
  return host.endsWith(suffix) && host.length > suffix.length && !host.slice(0, -suffix.length).includes('.');
}

/**
 * The host the monitor checks: `host` normalised to ASCII (IDNA) when given, which must be a DNS
 * name (not a wildcard) the certificate covers; otherwise the certificate's first SAN that is not
 * a wildcard. @throws ApiError VALIDATION_FAILED (`host`) when it is not one, or when every SAN is
 * a wildcard and no `host` is given
 */
export function monitoredHost(cert: Pick<CertificateRow, 'sans'>, host: string | undefined): string {
  const bad = (message: string) => new ApiError('VALIDATION_FAILED', `host: ${message}`, { fields: [{ path: 'host', message }] });
  if (host === undefined) {
    const plain = cert.sans.find((s) => !s.startsWith('*.'));
    if (!plain) throw bad('required: every name of this certificate is a wildcard');
    return plain;
  }
  const names = normaliseSans([host]);
  if ('fields' in names || names.sans[0]!.startsWith('*.')) throw bad('not a DNS name');
  const ascii = names.sans[0]!;
  if (!cert.sans.some((san) => sanCovers(san, ascii))) throw bad(`the certificate does not cover ${ascii} (it names ${cert.sans.join(', ')})`);
  return ascii;
}

/**
 * Create the ssl_expiry monitor of certificate `cert` for `owner` (the certificate's owner: the
 * team when it is a team's) through the monitor writer (plan limits, placement, target policy as
 * on `POST /v1/monitors`). @returns the monitor row as shown
 * @throws ApiError CONFLICT when the certificate is not issued (revoking, revoked) or has expired;
 *   VALIDATION_FAILED for `host`; the writer's errors (MONITOR_NAME_TAKEN: a monitor of that name
 *   exists, e.g. this certificate's, MONITOR_LIMIT_EXCEEDED, MONITOR_INVALID_TARGET…)
 */
export async function createCertificateMonitor(
  writer: ReturnType<typeof monitorWriter>, owner: Owner, cert: CertificateRow, body: CertificateMonitorRequest, now: Date = new Date(),
): Promise<MonitorRow> {
  const status = cert.status === 'issued' && cert.not_after.getTime() <= now.getTime() ? 'expired' : cert.status;
  if (status !== 'issued') throw new ApiError('CONFLICT', `the certificate is ${status}; only an issued one is monitored`, { status });
  const host = monitoredHost(cert, body.host);
  const { row } = await writer.create(owner, {
    type: 'ssl_expiry', target: host, name: body.name ?? `Certificate ${host}`, config: body.config ?? {},
    ...(body.interval_s !== undefined ? { interval_s: body.interval_s } : {}), ...(body.node_count !== undefined ? { node_count: body.node_count } : {}),
    ...(body.group_id !== undefined ? { group_id: body.group_id } : {}), ...(body.tags !== undefined ? { tags: body.tags } : {}),
  });
  return row;
}
