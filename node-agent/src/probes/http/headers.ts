/**
 * Normalise response headers to docs/api/probes.md's string map: lower-case keys, multiple values joined
 * with ", " (set-cookie included). Input is undici's
 * raw header list (`[name, value, name, value, …]`, Buffers in the dispatch handler's onHeaders),
 * decoded as UTF-8.
 */
export function joinRawHeaders(raw: (Buffer | string)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!.toString().toLowerCase();
    const text = raw[i + 1]!.toString();
    out[key] = key in out ? `${out[key]}, ${text}` : text;
  }
  return out;
}
