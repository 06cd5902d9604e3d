/**
 * What keeps a test process alive after its last test ended: the handles still open, described
 * (a child process's command, a socket's ends, a server's address), printed to stderr when the
 * process is still running `after_ms` after the test's teardowns. The timer is unreferenced, so a
 * process that exits as it should never prints anything. For test files that start many kinds of
 * handles (an agent, Chromium, servers, pools) and once failed to exit in CI.
 */
export function reportLeftHandles(t: { teardown(fn: () => unknown): void }, after_ms = 10_000): void {
  t.teardown(() => {
    setTimeout(() => {
      const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().map(describe);
      process.stderr.write(`# still running ${after_ms} ms after the test ended; resources ${JSON.stringify(process.getActiveResourcesInfo())}; handles ${JSON.stringify(handles)}\n`);
    }, after_ms).unref();
  });
}

function describe(h: unknown): unknown {
  const o = h as Record<string, any>;
  const kind = o?.constructor?.name ?? typeof h;
  if (kind === 'ChildProcess') return { kind, pid: o.pid, args: (o.spawnargs as string[] | undefined)?.slice(0, 3) };
  if (kind === 'Socket' || kind === 'TLSSocket') {
    return { kind, local: `${o.localAddress}:${o.localPort}`, remote: `${o.remoteAddress}:${o.remotePort}`, fd: o._handle?.fd, destroyed: o.destroyed };
  }
  if (kind === 'Server') return { kind, address: o.address?.() };
  return { kind };
}
