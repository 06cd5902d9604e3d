import { inspect } from 'node:util';

function prefixOf(value: string): string {
  const cut = value.lastIndexOf('_');
  return cut > 0 && cut < 12 ? value.slice(0, cut + 1) : '';
}

/**
 * A secret value (an `ent_` enrollment token or an `nk_` node credential) that cannot be printed or
 * logged by accident: `String()`, `JSON.stringify`, pino and `console.log` all
 * see `ent_[redacted]`. Only {@link Secret.reveal} gives the value, at the one place it is sent.
 * The value lives in a closure, not a field: pino's wildcard redaction copies objects, which
 * breaks `#private` fields, and a copy of this object still carries nothing secret.
 */
export class Secret {
  /** The prefix up to and including its last `_` (`ent_`, `nk_`), which says what kind it is. */
  readonly prefix: string;
  /** The secret itself: call only where it goes on the wire (the Authorization header) or to the state DB. */
  declare readonly reveal: () => string;

  constructor(value: string) {
    this.prefix = prefixOf(value);
    Object.defineProperty(this, 'reveal', { value: () => value, enumerable: false });
  }

  toString(): string {
    return `${this.prefix}[redacted]`;
  }

  toJSON(): string {
    return `${this.prefix}[redacted]`;
  }

  [inspect.custom](): string {
    return `Secret(${this.prefix}[redacted])`;
  }
}
