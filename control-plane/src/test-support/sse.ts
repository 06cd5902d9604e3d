/**
 * Server-sent events of a fetch Response, frame by frame (WHATWG HTML "Server-sent events":
 * frames end with a blank line; `event:`, `id:` and `data:` fields, `data` parsed as JSON).
 * Frames without an `event` field (comments, keep-alives) are skipped. Ends when the body ends.
 */
export async function* sseFrames(res: Response): AsyncGenerator<{ event: string; id?: string; data: any }> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const f: Record<string, string> = {};
      for (const line of block.split('\n')) {
        const m = /^(event|id|data): ?(.*)$/.exec(line);
        if (m) f[m[1]!] = m[2]!;
      }
      if (f.event) yield { event: f.event, id: f.id, data: JSON.parse(f.data ?? 'null') };
    }
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
  }
}
