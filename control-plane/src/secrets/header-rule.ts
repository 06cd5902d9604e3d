/**
 * Which request header values are secrets (docs/api/monitors.md "Secrets in headers"): the rule
 * shared by monitor configs (monitors/header-secrets.ts) and stored probe tasks
 * (probes/task-secrets.ts). It is defined in shared-protocol (http-headers.ts), where the monitor
 * config schema reads it too: a secret header's value may be sent back as its mask.
 */
export { isSecretHeader, PUBLIC_HEADERS } from '@vantage/shared-protocol';
