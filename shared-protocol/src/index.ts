/**
 * @vantage/shared-protocol: the single definition of every wire shape of Vantage (HTTP bodies and
 * node WebSocket messages), with ids, error codes and limits. Types come from `z.infer`.
 */
export * from './ids.js';
export * from './limits.js';
export * from './errors.js';
export * from './envelope.js';
export * from './parse.js';
export * from './probe/params.js';
export * from './probe/request.js';
export * from './probe/outputs.js';
export * from './probe/mtr.js';
export * from './probe/smtp.js';
export * from './probe/ntp.js';
export * from './probe/headers.js';
export * from './probe/speedtest.js';
export * from './probe/diagnose.js';
export * from './probe/results.js';
export * from './probe/address-policy.js';
export * from './probe/sanitize.js';
export * from './node-protocol/version.js';
export * from './node-protocol/close-codes.js';
export * from './node-protocol/messages.js';
export * from './node-protocol/assignments.js';
export * from './checks/index.js';
export * from './node-protocol/enroll-proof.js';
export * from './nodes.js';
export * from './account.js';
export * from './account-passkeys.js';
export * from './account-lifecycle.js';
export * from './host-port.js';
export * from './http-headers.js';
export * from './events.js';
export * from './webhooks.js';
export * from './email-verification.js';
export * from './monitors/index.js';
export * from './alerting/index.js';
export * from './teams.js';
export * from './oncall.js';
export * from './status-pages.js';
export * from './incidents.js';
export * from './passwords.js';
export * from './two-factor.js';
export * from './oauth.js';
export * from './info-lookups.js';
export * from './lookups/whois-ssl.js';
export * from './mcp.js';
