import t from 'tap';
import { inertText } from './inert-text.js';

// What mail clients would make a link of, and what it must read as instead (docs/api/alerting.md "E-mail recipients").
t.test('inertText defangs URLs, domains and addresses and drops hidden characters', async (t) => {
  const cases: Array<[string, string]> = [
    ['Pay at https://evil.example/login now', 'Pay at hxxps[:]//evil[.]example/login now'],
    ['HTTP://EVIL.EXAMPLE', 'HxxP[:]//EVIL[.]EXAMPLE'],
    ['see www.evil.example', 'see www[.]evil[.]example'],
    ['mail billing@evil.example', 'mail billing[at]evil[.]example'],
    ['ftp://10.0.0.1/x', 'ftp[:]//10[.]0[.]0[.]1/x'],
    ['evil\u3002example \uff0e x\uff0ey a\u2024b', 'evil[.]example \uff0e x[.]y a[.]b'],
    ['a\u202eelgoog.com\u202c', 'a elgoog[.]com'],
    ['line\r\nbreak\ttab', 'line break tab'],
    ['Ops on-call (EU), v2.', 'Ops on-call (EU), v2.'],
    ['version 1.2', 'version 1[.]2'],
  ];
  for (const [input, expected] of cases) t.equal(inertText(input), expected, JSON.stringify(input));
  t.equal(inertText('x'.repeat(300)).length, 200, 'cut to 200 characters');
  t.ok(inertText('x'.repeat(300)).endsWith('…'), 'the cut is marked');
});
