import { createBrowserCheck } from '../browser/check.js';
import type { LazyBrowserPool } from '../browser/lazy-pool.js';
import type { ArtifactSpool } from '../outbox/artifact-spool.js';
import { dnsProbe } from '../probes/dns.js';
import type { Probe } from '../probes/types.js';
import { createAgentEndpointCheck } from './agent-endpoint.js';
import { createPatternSandbox, type PatternSandbox } from './assertions/sandbox.js';
import { createDnsCheck } from './dns.js';
import { createHttpCheck, createHttpsCheck } from './http.js';
import { DEFAULT_CHECK_BODY_MAX_BYTES } from './http-request.js';
import { createKeywordCheck } from './keyword.js';
import { createPingCheck } from './ping.js';
import { createRblCheck } from './rbl.js';
import { createSslExpiryCheck } from './ssl-expiry.js';
import { createTcpCheck } from './tcp.js';
import { createTracerouteCheck } from './traceroute.js';
import type { CheckMap } from './types.js';

export interface CheckOptions {
  /** Extra trusted CA certificates, PEM (tests trust their generated CA this way). */
  ca?: string | string[];
  /** Body bytes HTTP-like checks read for assertions (default DEFAULT_CHECK_BODY_MAX_BYTES, 1 MiB). */
  body_max_bytes?: number;
  /** Where patterns run (default: a new sandbox; docs/api/checks.md "Patterns"). */
  sandbox?: PatternSandbox;
  /** The DNS probe dns and rbl checks use (tests give one whose system resolver is theirs). */
  dns?: Probe<'dns'>;
  /** The node's browser for browser checks (agent.ts); absent: browser checks fail (`internal`). */
  browser?: LazyBrowserPool;
  /** Where browser checks keep their HAR and screenshot for upload (agent.ts); absent: their URLs stay empty. */
  artifacts?: ArtifactSpool;
}

/**
 * The one map from node check type to check (docs/api/checks.md); the runner dispatches through
 * it. HTTP-like checks share one body cap and one pattern sandbox.
 */
export function createChecks(options: CheckOptions = {}): CheckMap {
  const http = { ca: options.ca, body_max_bytes: options.body_max_bytes ?? DEFAULT_CHECK_BODY_MAX_BYTES, sandbox: options.sandbox ?? createPatternSandbox() };
  const dns = options.dns ?? dnsProbe;
  return {
    http: createHttpCheck(http),
    https: createHttpsCheck(http),
    keyword: createKeywordCheck(http),
    llm_endpoint: createAgentEndpointCheck('llm_endpoint', http),
    tool_api: createAgentEndpointCheck('tool_api', http),
    rag: createAgentEndpointCheck('rag', http),
    ping: createPingCheck(),
    tcp: createTcpCheck(),
    dns: createDnsCheck(dns),
    traceroute: createTracerouteCheck(),
    ssl_expiry: createSslExpiryCheck({ ca: options.ca }),
    rbl: createRblCheck(dns),
    browser: createBrowserCheck(options.browser ?? null, options.artifacts ?? null),
  };
}
