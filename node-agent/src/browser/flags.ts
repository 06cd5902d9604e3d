/*
 * Chromium command-line flags for a headless probe browser that must never talk to anyone but
 * the pages it checks, and only through the node's target proxy (proxy.ts): every URL, loopback
 * included, goes to the proxy (`--proxy-bypass-list=<-loopback>` removes Chromium's implicit
 * loopback bypass), and Chromium's own host resolver answers nothing but the proxy's address
 * (`--host-resolver-rules`), so no path (prefetch, preconnect, a feature we did not think of) can
 * resolve or reach a target around the proxy. No background networking (update checks, safe
 * browsing, sync, metrics), no QUIC (UDP, which an HTTP proxy cannot carry), no WebRTC UDP,
 * bounded memory. Playwright adds --headless and a fresh temporary profile per launch, and
 * --no-sandbox only where the sandbox cannot start (sandbox.ts decides).
 */

/** Memory bounds of one browser, passed as flags. */
export interface BrowserMemoryFlags {
  /** V8 old-space limit per renderer, MiB. */
  js_heap_max_mb: number;
  /** Most renderer processes at once. */
  renderer_process_limit: number;
}

/**
 * Features switched off. Chromium keeps only the last `--disable-features` switch, so this list
 * repeats the ones Playwright's own switch disables (chromiumSwitches.ts in playwright-core 1.65:
 * HttpsUpgrades and HttpsFirstBalancedModeAutoEnable keep http navigations on http, PaintHolding,
 * AvoidCorsURLLoaderRestartOnRedirect for interception...) and adds ours: no async or
 * DNS-over-HTTPS resolver, no network-time, translate or autofill-server traffic.
 */
const DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
  'Translate', 'AutofillServerCommunication', 'AsyncDns', 'DnsOverHttps',
];

/**
 * The launch arguments. `marker` is a unique no-op argument by which the pool finds the process in
 * /proc; `proxy_server` (`http://127.0.0.1:<port>`) the node's target proxy. Without a proxy
 * (the capability probe) the browser can resolve and reach nothing.
 */
export function chromiumArgs(memory: BrowserMemoryFlags, marker: string, proxy_server?: string): string[] {
  const proxy_host = proxy_server ? new URL(proxy_server).hostname : null;
  return [
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--disable-breakpad',
    '--no-pings',
    '--dns-prefetch-disable',
    '--metrics-recording-only',
    `--disable-features=${DISABLED_FEATURES.join(',')}`,
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-dev-shm-usage',
    ...(proxy_server ? [`--proxy-server=${proxy_server}`, '--proxy-bypass-list=<-loopback>'] : []),
    `--host-resolver-rules=MAP * ~NOTFOUND${proxy_host ? ` , EXCLUDE ${proxy_host}` : ''}`,
    `--js-flags=--max-old-space-size=${memory.js_heap_max_mb}`,
    `--renderer-process-limit=${memory.renderer_process_limit}`,
    marker,
  ];
}
