/*
 * Chromium command-line flags for a headless probe browser that must never talk to anyone but
 * the pages it checks: no background networking (update checks, safe browsing, sync, metrics),
 * no QUIC (its UDP traffic bypasses request interception), no WebRTC UDP, bounded memory.
 * Playwright adds --headless, --no-sandbox (its chromiumSandbox default is false, which a root
 * process needs anyway) and a fresh temporary profile per launch.
 */

/** Memory bounds of one browser, passed as flags. */
export interface BrowserMemoryFlags {
  /** V8 old-space limit per renderer, MiB. */
  js_heap_max_mb: number;
  /** Most renderer processes at once. */
  renderer_process_limit: number;
}

/** The launch arguments; `marker` is a unique no-op argument by which the pool finds the process in /proc. */
export function chromiumArgs(memory: BrowserMemoryFlags, marker: string): string[] {
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
    '--disable-features=MediaRouter,OptimizationHints,Translate,AutofillServerCommunication,NetworkTimeServiceQuerying',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-dev-shm-usage',
    `--js-flags=--max-old-space-size=${memory.js_heap_max_mb}`,
    `--renderer-process-limit=${memory.renderer_process_limit}`,
    marker,
  ];
}
