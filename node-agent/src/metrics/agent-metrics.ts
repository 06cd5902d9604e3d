import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { ResultEnvelope } from '@vantage/shared-protocol';
import type { OutboxStats } from '../outbox/outbox.js';

/** What the scrape-time gauges read from the running agent. */
export interface AgentMetricSources {
  outbox: { stats(): OutboxStats };
  /** Node clock minus control-plane clock, ms; null until measured (assignments/clock.ts). */
  clock_offset_ms(): number | null;
  connected(): boolean;
}

/**
 * The node agent's Prometheus metrics (docs/operators/metrics.md "Node agent") on a registry of
 * its own: checks by kind, type and outcome, the outbox (depth, oldest age, dropped), connections
 * and reconnects, the clock offset, and Node.js process metrics.
 */
export class AgentMetrics {
  readonly registry = new Registry();
  readonly #checks = new Counter({ name: 'vantage_agent_checks_total', help: 'Checks this agent ran and put in its outbox, by kind (task or monitor), type and outcome (success or the failure class).', labelNames: ['kind', 'type', 'outcome'], registers: [this.registry] });
  readonly #connections = new Counter({ name: 'vantage_agent_connections_total', help: 'Connections the control plane welcomed since the agent started.', registers: [this.registry] });
  readonly #reconnects = new Counter({ name: 'vantage_agent_reconnects_total', help: 'Connections welcomed after the first since the agent started (each follows a lost connection).', registers: [this.registry] });
  readonly #disconnects = new Counter({ name: 'vantage_agent_disconnects_total', help: 'Connections to the control plane lost or closed.', registers: [this.registry] });
  #welcomed = 0;

  constructor(src: AgentMetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({ name: 'vantage_agent_outbox_depth', help: 'Results in the outbox not yet acknowledged by the control plane.', registers, collect() { this.set(src.outbox.stats().pending); } });
    new Gauge({
      name: 'vantage_agent_outbox_oldest_age_seconds', help: 'Age of the oldest unacknowledged result, seconds (0 when the outbox is empty).', registers,
      collect() {
        const oldest = src.outbox.stats().oldest_pending_at;
        this.set(oldest ? Math.max(0, (Date.now() - Date.parse(oldest)) / 1000) : 0);
      },
    });
    new Gauge({ name: 'vantage_agent_outbox_dropped', help: 'Results dropped from the outbox unsent (full or too old), as the outbox counts them.', registers, collect() { this.set(src.outbox.stats().dropped_total); } });
    new Gauge({ name: 'vantage_agent_connected', help: 'Whether the agent is connected to the control plane (1) or not (0).', registers, collect() { this.set(src.connected() ? 1 : 0); } });
    new Gauge({
      name: 'vantage_agent_clock_offset_seconds', help: 'This node\'s clock minus the control plane\'s, seconds (measured over the link; NaN until measured).', registers,
      collect() {
        const ms = src.clock_offset_ms();
        this.set(ms === null ? Number.NaN : ms / 1000);
      },
    });
  }

  /** A result went to the outbox. */
  produced(r: ResultEnvelope): void {
    this.#checks.inc({ kind: r.task_id !== null ? 'task' : 'monitor', type: r.type, outcome: r.success ? 'success' : r.error_class ?? 'internal' });
  }

  /** The control plane welcomed a connection. */
  welcomed(): void {
    this.#connections.inc();
    if (this.#welcomed++ > 0) this.#reconnects.inc();
  }

  /** The connection went down. */
  disconnected(): void {
    this.#disconnects.inc();
  }
}
