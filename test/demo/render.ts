import Table from 'cli-table3';

/** One node's result as GET /v1/probe/tasks/{id} returns it (docs/api/probes.md plus the per-type fields). */
type NodeResult = Record<string, any> & { node_id: string; node_name: string; success: boolean; error: string | null; latency_ms: number | null; node: { country: string | null; city: string | null } };

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${Number(v).toFixed(v < 10 ? 2 : 1)}`);

/** The per-type "what happened" cell: status and size for http, rcode and answers for dns, … */
export function detail(type: string, r: NodeResult): string {
  if (!r.success && r.error) return r.error.length > 70 ? `${r.error.slice(0, 67)}…` : r.error;
  switch (type) {
    case 'http': return `${r.status_code} · ${r.response_size} B · dns ${r.timing?.dns_ms} tcp ${r.timing?.tcp_ms} ttfb ${r.timing?.ttfb_ms} dl ${r.timing?.download_ms} ms`;
    case 'tcp': return `${r.state} · port ${r.port}`;
    case 'dns': return `${r.rcode} via ${r.server} · ${(r.answers ?? []).map((a: any) => a.value).join(', ')}`;
    case 'ping': return `${r.packets_received}/${r.packets_sent} · loss ${r.packet_loss}% · min/avg/max ${ms(r.rtt_min_ms)}/${ms(r.rtt_avg_ms)}/${ms(r.rtt_max_ms)} ms`;
    case 'traceroute': return (r.hops ?? []).map((h: any) => `${h.hop} ${h.address ?? '*'}`).join(' → ') + (r.destination_reached ? ' (reached)' : '');
    default: return '';
  }
}

/** A readable table of one task's node results and its summary line (docs/api/probes.md summary). */
export function renderTask(type: string, target: string, task: { status: string; node_results: NodeResult[]; summary: Record<string, number | null> }, extra?: string): string {
  const table = new Table({
    head: ['node', 'location', 'ok', 'latency ms', 'result'],
    style: { head: [], border: [] }, wordWrap: true, colWidths: [16, 14, 5, 12, 72],
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const r of task.node_results) {
    table.push([r.node_name, [r.node?.city, r.node?.country].filter(Boolean).join(', ') || '–', r.success ? 'yes' : 'no', ms(r.latency_ms), detail(type, r)]);
  }
  const s = task.summary;
  const lines = [
    `\n${type.toUpperCase()} ${target}: ${task.status}`,
    table.toString(),
    `summary: avg ${ms(s.avg_response_ms)} ms · p95 ${ms(s.p95_response_ms)} ms · ${s.success_count} ok · ${s.fail_count} failed${extra ? ` · ${extra}` : ''}`,
  ];
  return lines.join('\n');
}

/**
 * A one-line progress display on stderr: redrawn in place on a terminal, printed only when the
 * text changes otherwise (CI logs stay short).
 */
export function progress(): { update(text: string): void; done(): void } {
  const tty = process.stderr.isTTY;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  let last = '';
  return {
    update(text) {
      if (tty) process.stderr.write(`\r\x1b[2K${frames[i++ % frames.length]} ${text}`);
      else if (text !== last) process.stderr.write(`… ${text}\n`);
      last = text;
    },
    done() {
      if (tty) process.stderr.write('\r\x1b[2K');
    },
  };
}
