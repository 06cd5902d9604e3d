import type { DnsCheckOutput, DnsOutput } from '@vantage/shared-protocol';
import { dnsProbe } from '../probes/dns.js';
import type { Probe } from '../probes/types.js';
import { failed, passed, type Check } from './types.js';

/**
 * A record value in the form expected values are compared in: lower case, whitespace collapsed,
 * no trailing dot on names, and a TXT record's single quoted string unquoted
 * (`"v=spf1 -all"` → `v=spf1 -all`).
 */
export function normalizeValue(value: string): string {
  let text = value.trim();
  if (/^"(?:[^"\\]|\\.)*"$/.test(text)) text = text.slice(1, -1).replace(/\\(.)/g, '$1');
  return text.toLowerCase().split(/\s+/).map((token) => (token.length > 1 ? token.replace(/\.$/, '') : token)).join(' ');
}

/** The answer values a check compares: records of the queried type (every record for ANY), normalised. */
export function answerValues(output: DnsOutput, record_type: string): Set<string> {
  const records = output.answers.filter((a) => record_type === 'ANY' || a.type === record_type);
  return new Set(records.map((a) => normalizeValue(a.value)));
}

/**
 * `dns` check (docs/api/checks.md): one query as the DNS probe sends it (record_type, server,
 * protocol, timeout_ms). Up when the response code is `expected_rcode` (default NOERROR) and the
 * answer holds the `expected_values`: all of them (`expected_match: all`, default) or at least
 * one (`any`); no expected values = any answer.
 */
export function createDnsCheck(probe: Probe<'dns'> = dnsProbe): Check<'dns'> {
  return {
    type: 'dns',
    async run(target, config, ctx) {
      const got = await probe.run(target, { record_type: config.record_type, server: config.server, protocol: config.protocol, timeout_ms: config.timeout_ms }, ctx);
      const seen = answerValues(got.output, config.record_type);
      const matched = config.expected_values.filter((v) => seen.has(normalizeValue(v)));
      const missing = config.expected_values.filter((v) => !seen.has(normalizeValue(v)));
      const output: DnsCheckOutput = { ...got.output, matched_values: matched, missing_values: missing };
      // The probe fails any rcode but NOERROR; a failure with NOERROR (or none) is a failed exchange.
      if (output.rcode === null || (!got.success && output.rcode === 'NOERROR')) return failed(output, got.error ?? 'no reply', got.error_class ?? 'target');
      if (output.rcode !== config.expected_rcode) {
        return failed(output, `${output.rcode} from ${output.server} for ${target} ${config.record_type}, expected ${config.expected_rcode}`, 'target');
      }
      if (config.expected_values.length > 0) {
        const ok = config.expected_match === 'any' ? matched.length > 0 : missing.length === 0;
        if (!ok) {
          const got_values = [...seen].slice(0, 10).join(', ') || 'no records';
          const what = config.expected_match === 'any' ? `none of ${config.expected_values.join(', ')}` : `not ${missing.join(', ')}`;
          return failed(output, `${config.record_type} ${target} answered ${got_values}; ${what}`, 'assertion');
        }
      }
      return passed(output);
    },
  };
}
