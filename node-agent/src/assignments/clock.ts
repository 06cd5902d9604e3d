/** Samples kept; the one with the shortest round trip wins (NTP's clock filter, RFC 5905 10). */
const SAMPLES_MAX = 8;

interface Sample {
  offset_ms: number;
  rtt_ms: number;
}

/**
 * This node's clock offset against the control plane (docs/architecture/node-agent.md "Clock"),
 * measured NTP-style over the WebSocket: the control plane's heartbeat carries its clock
 * (`sent_at`), the node notes when it arrived, and a WebSocket ping measures the round trip. With
 * a symmetric path the heartbeat spent rtt/2 on the way, so
 * `offset = arrival - sent_at - rtt / 2` (node clock minus control-plane clock, ms; positive:
 * the node is ahead). Of the last SAMPLES_MAX samples the one with the shortest round trip is
 * used: queueing delay only ever adds to a sample's error, and shows in its round trip.
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
    this.#samples.push({ offset_ms: received_at - sent_at - this.#rtt_ms / 2, rtt_ms: this.#rtt_ms });
    if (this.#samples.length > SAMPLES_MAX) this.#samples.shift();
  }

  /** The best sample, or null before the first. */
  #best(): Sample | null {
    let best: Sample | null = null;
    for (const s of this.#samples) if (!best || s.rtt_ms < best.rtt_ms) best = s;
    return best;
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
