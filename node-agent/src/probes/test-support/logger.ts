import pino, { type Logger } from 'pino';

/** A pino logger that writes nothing, for tests and benchmarks outside node-agent's dependencies. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
