import type { ProbeType } from '@vantage/shared-protocol';
import { dnsProbe } from './dns.js';
import { httpProbe } from './http.js';
import { pingProbe } from './ping.js';
import { tcpProbe } from './tcp.js';
import { tracerouteProbe } from './traceroute.js';
import type { Probe } from './types.js';

/** The one map from check type to prober; the runner dispatches through it. */
export const PROBES: { [T in ProbeType]: Probe<T> } = {
  http: httpProbe,
  ping: pingProbe,
  dns: dnsProbe,
  tcp: tcpProbe,
  traceroute: tracerouteProbe,
};
