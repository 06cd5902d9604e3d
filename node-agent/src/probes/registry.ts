import type { ProbeType } from '@vantage/shared-protocol';
import { dnsProbe } from './dns.js';
import { headersProbe } from './headers.js';
import { httpProbe } from './http.js';
import { mtrProbe } from './mtr.js';
import { ntpProbe } from './ntp.js';
import { pingProbe } from './ping.js';
import { smtpProbe } from './smtp.js';
import { speedtestProbe } from './speedtest.js';
import { sslProbe } from './ssl.js';
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
  mtr: mtrProbe,
  smtp: smtpProbe,
  ntp: ntpProbe,
  headers: headersProbe,
  speedtest: speedtestProbe,
  ssl: sslProbe,
};
