/**
 * A one-line progress display on stderr: `[2/7] hub-bench  34.5 s`. On a terminal the line is
 * rewritten in place every second; otherwise (CI logs) a line is printed at each start and every
 * 30 s, so a log still shows which benchmark was running.
 */
export class Progress {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;
  private label = '';
  private readonly tty = Boolean(process.stderr.isTTY);

  /** Show `label` (e.g. `[2/7] hub-bench`) with the time since this call. */
  start(label: string): void {
    this.stop();
    this.label = label;
    this.started = performance.now();
    this.draw();
    this.timer = setInterval(() => this.draw(), this.tty ? 1000 : 30_000);
  }

  /** Stop the current line and print `summary` (e.g. `ok 41.2 s`) after its label. */
  done(summary: string): void {
    this.stop();
    process.stderr.write(`${this.tty ? '\r\x1b[K' : ''}${this.label}  ${summary}\n`);
  }

  private draw(): void {
    const s = ((performance.now() - this.started) / 1000).toFixed(0);
    process.stderr.write(this.tty ? `\r\x1b[K${this.label}  ${s} s` : `${this.label}  running, ${s} s\n`);
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
