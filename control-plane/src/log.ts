import pino, { type Logger } from 'pino';

/**
 * The root pino logger (JSON to stdout). Secrets are redacted wherever they appear under the usual
 * names; modules take `log.child({ module: 'hub' })`.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'control-plane' },
    redact: {
      paths: ['*.password', '*.token', '*.secret', '*.key', '*.credential', '*.authorization', 'req.headers.authorization', '*.otp', '*.refresh_token', '*.access_token'],
      censor: '[redacted]',
    },
  });
}
export type { Logger };
