import type { MtrHop } from '@vantage/shared-protocol';
import { round3 } from './icmp/senders.js';

/**
 * One hop's running statistics as mtr keeps them (mtr net.c): probes sent, answers, last, best,
 * worst, mean and the sum of squared deviations by Welford's method, so stdev is the sample
 * standard deviation √(ssd / (n − 1)), 0 with a single answer.
 */
export class HopStats {
  address: string | null = null;
  sent = 0;
  received = 0;
  private last = 0;
  private best = Infinity;
  private worst = 0;
  private mean = 0;
  private ssd = 0;

  constructor(readonly hop: number) {}

  /** Count one probe sent with this TTL; `rtt_ms` and `from` are null when nothing answered. */
  add(from: string | null, rtt_ms: number | null): void {
    this.sent++;
    if (from === null || rtt_ms === null) return;
    this.address ??= from;
    this.received++;
    this.last = rtt_ms;
    this.best = Math.min(this.best, rtt_ms);
    this.worst = Math.max(this.worst, rtt_ms);
    const delta = rtt_ms - this.mean;
    this.mean += delta / this.received;
    this.ssd += delta * (rtt_ms - this.mean);
  }

  /** The hop as the API reports it (shared-protocol mtrHopSchema); times in ms rounded to µs. */
  report(hostname: string | null, asn: number | null): MtrHop {
    const answered = this.received > 0;
    const time = (v: number) => (answered ? round3(v) : null);
    return {
      hop: this.hop,
      address: this.address,
      hostname,
      asn,
      loss_pct: this.sent === 0 ? 0 : Math.round(((this.sent - this.received) / this.sent) * 10000) / 100,
      sent: this.sent,
      received: this.received,
      last_ms: time(this.last),
      avg_ms: time(this.mean),
      best_ms: time(this.best),
      worst_ms: time(this.worst),
      stdev_ms: time(this.received > 1 ? Math.sqrt(this.ssd / (this.received - 1)) : 0),
    };
  }
}
