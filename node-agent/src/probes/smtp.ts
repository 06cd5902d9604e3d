import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { deadlineSignal, splitHostPort, type SmtpOutput } from '@vantage/shared-protocol';
import { classifyNetError } from './http/classify.js';
import { ProbeInputError } from './input-error.js';
import { resolveTarget } from './resolve.js';
import { runSession, SmtpRefusal } from './smtp/session.js';
import type { Probe } from './types.js';

/** RFC 5321 4.5.4: submission to a relay; 465 is implicit TLS (RFC 8314 3.3). */
const DEFAULT_PORT = 25;
const IMPLICIT_TLS_PORT = 465;

/** The EHLO argument: the node's host name when it is a plausible domain, else an address-literal-free stand-in. */
function defaultHeloName(): string {
  const name = hostname();
  return /^[A-Za-z0-9.-]{1,253}$/.test(name) ? name : 'localhost';
}

/**
 * SMTP probe (docs/api/probes.md "smtp"): one session to `host[:port]` (default 25; implicit TLS on
 * 465 unless `params.implicit_tls` says otherwise; 587 and others plain with STARTTLS) reporting
 * the greeting, the EHLO keywords, STARTTLS offered and negotiated with the TLS version, cipher, verification result and leaf certificate,
 * and per-phase times (shared-protocol smtpTimingSchema). MAIL FROM and RCPT TO only when both
 * `params.mail_from` and `params.rcpt_to` are given, then QUIT; never DATA. The whole session is
 * bounded by `params.timeout_ms`. Success: greeting 220 and EHLO 250 (after STARTTLS too, when
 * negotiated); a refused RCPT is reported, not a failure.
 */
export const smtpProbe: Probe<'smtp'> = {
  type: 'smtp',
  async run(target, params, ctx) {
    const hp = splitHostPort(target.trim());
    if (!hp) throw new ProbeInputError(`target ${target} is not host[:port]`);
    const port = hp.port ?? DEFAULT_PORT;
    const implicit_tls = params.implicit_tls ?? port === IMPLICIT_TLS_PORT;
    const output: SmtpOutput = {
      resolved_address: null, port, tls_mode: implicit_tls ? 'implicit' : 'none', banner: null, ehlo_extensions: [],
      starttls_offered: false, starttls_negotiated: false, tls: null, certificate: null, mail_from: null, rcpt_to: null,
      timing: { connect_ms: null, banner_ms: null, tls_ms: null, ehlo_ms: null, mail_ms: null, total_ms: null },
    };
    const resolved = await resolveTarget(hp.host, params.ip_version, ctx.policy);
    if (!resolved.ok) return { success: false, error: resolved.error, error_class: resolved.error_class, output };
    output.resolved_address = resolved.address;

    // Not AbortSignal.any/timeout: their WeakRefs kept each session's socket through
    // young-generation collections (shared-protocol deadline-signal.ts).
    const deadline = deadlineSignal(ctx.signal, params.timeout_ms);
    const envelope = params.mail_from && params.rcpt_to ? { mail_from: params.mail_from, rcpt_to: params.rcpt_to } : null;
    try {
      await runSession({
        address: resolved.address, port, servername: isIP(hp.host) ? undefined : hp.host, implicit_tls,
        starttls: params.starttls, helo_name: params.helo_name ?? defaultHeloName(), envelope, signal: deadline.signal,
      }, output);
      return { success: true, error: null, error_class: null, output };
    } catch (err) {
      if (err instanceof SmtpRefusal) return { success: false, error: err.message, error_class: 'target', output };
      const failure = classifyNetError(err, deadline.signal.aborted, params.timeout_ms);
      return { success: false, ...failure, output };
    } finally {
      deadline.dispose();
    }
  },
};
