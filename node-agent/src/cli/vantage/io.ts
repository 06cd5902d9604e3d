import type { FetchLike } from '../../as-code/client.js';

/** What a `vantage` command may touch: output streams, its environment (read once), fetch, a clock, stdin. */
export interface VantageIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Rewrites the current status line on a terminal; null when stderr is not one (progress then goes line by line). */
  status: ((text: string) => void) | null;
  env: Record<string, string | undefined>;
  fetch?: FetchLike;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readStdin: () => Promise<string>;
  /** Aborted on SIGINT/SIGTERM (`events tail` stops there). */
  signal?: AbortSignal;
}

/** A bad command line: the usage is printed, exit status 64 (EX_USAGE; 2 means "changes pending"). */
export class VantageUsageError extends Error {
  override readonly name = 'VantageUsageError';
}

export const EXIT = { ok: 0, error: 1, changes: 2, usage: 64 } as const;
