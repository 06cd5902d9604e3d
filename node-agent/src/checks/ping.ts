import type { PingCheckOutput } from '@vantage/shared-protocol';
import { pingProbe } from '../probes/ping.js';
import type { Probe } from '../probes/types.js';
import { failed, passed, type Check } from './types.js';

/**
 * `ping` check (docs/api/checks.md): the ping probe with the monitor's count, timeout_ms,
 * interval_ms and ip_version; down when no reply came, when packet loss exceeds
 * `max_packet_loss_pct` (default 50) or the average rtt exceeds `max_avg_rtt_ms`.
 */
export function createPingCheck(probe: Probe<'ping'> = pingProbe): Check<'ping'> {
  return {
    type: 'ping',
    async run(target, config, ctx) {
      const { count, timeout_ms, interval_ms, ip_version } = config;
      const got = await probe.run(target, { count, timeout_ms, interval_ms, ip_version }, ctx);
      const output: PingCheckOutput = got.output;
      if (!got.success) return failed(output, got.error ?? 'no reply', got.error_class ?? 'target');
      if (output.packet_loss > config.max_packet_loss_pct) {
        return failed(output, `packet loss ${output.packet_loss.toFixed(1)} % exceeds max_packet_loss_pct ${config.max_packet_loss_pct} (${output.packets_received} of ${output.packets_sent} answered)`, 'assertion');
      }
      if (config.max_avg_rtt_ms !== undefined && output.rtt_avg_ms !== null && output.rtt_avg_ms > config.max_avg_rtt_ms) {
        return failed(output, `average rtt ${output.rtt_avg_ms.toFixed(3)} ms exceeds max_avg_rtt_ms ${config.max_avg_rtt_ms}`, 'assertion');
      }
      return passed(output);
    },
  };
}
