/*
 * Text a user chose, shown to someone else in an e-mail (an alert channel's name in an opt-in
 * e-mail): mail clients turn anything that looks like a URL, a domain or an address into a link,
 * whatever the HTML says. Defanged the way threat reports write indicators (`hxxps[:]//evil[.]com`),
 * such text reads the same to a person and is a link to no client.
 */

// C0/C1 controls, and the bidirectional controls that can make text read differently from its order.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// A dot between letters or digits (ASCII or any script), and the dots IDNA treats as one.
const DOT = /(?<=[\p{L}\p{N}])[.\u2024\u3002\uff0e\uff61](?=[\p{L}\p{N}])/gu;

/**
 * `text` as inert plain text: controls removed, whitespace folded, schemes written `hxxp`/`hxxps`
 * and `[:]//`, dots between letters or digits `[.]`, `@` `[at]`; at most `max_chars` characters
 * (an ellipsis marks a cut). Still plain text: escape it for HTML as any other text.
 * @example inertText('Pay at https://evil.example/login') // 'Pay at hxxps[:]//evil[.]example/login'
 */
export function inertText(text: string, max_chars = 200): string {
  const out = text.replace(HIDDEN, ' ').replace(/\s+/g, ' ').trim()
    .replace(/\b(h)tt(ps?)(?=\s*:)/gi, '$1xx$2')
    .replace(/:\s*\/\//g, '[:]//')
    .replace(DOT, '[.]')
    .replace(/[@\uff20]/g, '[at]');
  return out.length > max_chars ? `${out.slice(0, max_chars - 1)}…` : out;
}
