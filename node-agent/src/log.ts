import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Log levels accepted by `log_level` (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Field paths pino censors wherever they appear (secrets are never logged). The Secret type
 * already prints as `[redacted]`; this catches raw strings that slip into a log object.
 */
export const REDACT_PATHS = [
  'token', 'credential', 'authorization', 'Authorization',
  '*.token', '*.credential', '*.authorization', '*.Authorization',
  'headers.authorization', 'req.headers.authorization',
];

/**
 * The agent's root logger: JSON lines (pino) to `destination` (default stdout), with
 * `{ service: 'node-agent' }` and secrets redacted. Modules take `log.child({ module: 'agent.outbox' })`.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'node-agent' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
