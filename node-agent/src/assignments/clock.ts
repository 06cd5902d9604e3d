/** Samples kept: the last 8 heartbeats (about 30 s at the default interval). */
const SAMPLES_MAX = 8;

interface Sample {
  /** arrival (node clock) − sent_at (control-plane clock), ms: the offset plus the heartbeat's one-way delay. */
  delay_ms: number;
  /** The last WebSocket round trip measured when the heartbeat arrived, ms. */
  rtt_ms: number;
}

/**
 * This node's clock offset against the control plane (docs/architecture/node-agent.md "Clock"),
 * measured over the WebSocket: the control plane's heartbeat carries its clock (`sent_at`), the
 * node notes when it arrived, and a WebSocket ping measures the round trip. With a symmetric path
 * a heartbeat spends rtt/2 on the way, so `offset = arrival - sent_at - rtt / 2` (node clock minus
 * control-plane clock, ms; positive: the node is ahead).
 *
 * Delay only ever adds: to `arrival - sent_at` (a heartbeat queued, or read late by a stalled
 * event loop on either side) and to the round trip. So over the last SAMPLES_MAX samples the
 * smallest of each is the least delayed, and `offset = min(arrival - sent_at) - min(rtt) / 2`
 * (RFC 5905 10's clock filter takes the sample of least delay for the same reason). The round
 * trip is not the heartbeat's own (it is the last ping's), so picking the sample of shortest
 * round trip, as this did before, let one heartbeat read 9 s late after a short ping move every
 * round of the node by 9 s.
 */
export class ClockOffset {
  readonly #samples: Sample[] = [];
  #rtt_ms: number | null = null;
  readonly #now: () => number;

  /** @param now this node's clock, epoch ms (tests fix it) */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A WebSocket ping came back after `rtt_ms`. */
  noteRtt(rtt_ms: number): void {
    if (Number.isFinite(rtt_ms) && rtt_ms >= 0) this.#rtt_ms = rtt_ms;
  }

  /** A control-plane heartbeat stamped `sent_at` (its clock, epoch ms) arrived at `received_at` (ours). */
  noteServerTime(sent_at: number, received_at: number = this.#now()): void {
    if (this.#rtt_ms === null) return; // no round trip yet: the sample's error is unbounded
    this.#samples.push({ delay_ms: received_at - sent_at, rtt_ms: this.#rtt_ms });
    if (this.#samples.length > SAMPLES_MAX) this.#samples.shift();
  }

  /** The least delayed heartbeat and the shortest round trip of the samples, or null before the first. */
  #best(): { offset_ms: number; rtt_ms: number } | null {
    if (this.#samples.length === 0) return null;
    const delay_ms = Math.min(...this.#samples.map((s) => s.delay_ms));
    const rtt_ms = Math.min(...this.#samples.map((s) => s.rtt_ms));
    return { offset_ms: delay_ms - rtt_ms / 2, rtt_ms };
  }

  /** Node clock minus control-plane clock, ms (rounded), or null until measured. */
  get offset_ms(): number | null {
    const b = this.#best();
    return b ? Math.round(b.offset_ms) : null;
  }

  /** The control plane's time now, epoch ms: our clock corrected by the measured offset (uncorrected until measured). */
  serverNow(): number {
    return this.#now() - (this.offset_ms ?? 0);
  }

  /** The heartbeat fields reporting the measurement (shared-protocol heartbeatMessageSchema); empty until measured. */
  report(): { clock_offset_ms?: number; rtt_ms?: number } {
    const b = this.#best();
    return b ? { clock_offset_ms: Math.round(b.offset_ms), rtt_ms: Math.round(b.rtt_ms) } : {};
  }
}
