import t from 'tap';
import { flapEpisode, targetKey } from './noise-flap.js';

/* The pure rules of the noise rules: when a monitor is flapping, what is the same target. */

const T0 = Date.parse('2025-03-10T12:00:00Z');
const s = (x: number) => new Date(T0 + x * 1000);

t.test('flapEpisode: n changes within the window, until stable for the window', async (t) => {
  const cases: Array<[string, number[], number, number, number, number | null]> = [
    // name, changes (s), n, window_s, at (s), expected since (s) or null
    ['no change', [], 3, 600, 0, null],
    ['fewer than n', [0, 60], 3, 600, 60, null],
    ['n within the window', [0, 60, 120], 3, 600, 120, 0],
    ['n spread wider than the window', [0, 400, 800], 3, 600, 800, null],
    ['exactly the window apart counts', [0, 300, 600], 3, 600, 600, 0],
    ['still flapping before stable for the window', [0, 60, 120], 3, 600, 719, 0],
    ['over once stable for the window', [0, 60, 120], 3, 600, 720, null],
    ['the flap goes on while changes keep coming', [0, 60, 120, 500, 1000, 1500], 3, 600, 1600, 0],
    ['a gap of the window ends it: the next flap starts anew', [0, 60, 120, 800, 850, 900], 3, 600, 900, 800],
    ['after a gap, fewer than n: not flapping', [0, 60, 120, 800, 850], 3, 600, 850, null],
    ['the first n in the window start it', [0, 500, 900, 950, 1000], 3, 600, 1000, 500],
  ];
  for (const [name, changes, n, window_s, at, since] of cases) {
    const got = flapEpisode(changes.map(s), n, window_s, s(at));
    t.same(got && (got.since.getTime() - T0) / 1000, since, name);
  }
});

t.test('targetKey: host of a URL or host:port, or the whole target', async (t) => {
  const cases: Array<[string | null, 'host' | 'target', string | null]> = [
    ['https://API.example.com/health', 'host', 'api.example.com'],
    ['http://api.example.com:8080/x', 'host', 'api.example.com'],
    ['api.example.com:443', 'host', 'api.example.com'],
    ['api.example.com', 'host', 'api.example.com'],
    ['[2001:db8::1]:53', 'host', '2001:db8::1'],
    ['https://[2001:db8::1]/', 'host', '2001:db8::1'],
    ['2001:db8::1', 'host', '2001:db8::1'],
    [' https://api.example.com/health ', 'target', 'https://api.example.com/health'],
    [null, 'host', null],
    ['   ', 'target', null],
  ];
  for (const [target, match, want] of cases) t.equal(targetKey(target, match), want, `${JSON.stringify(target)} by ${match}`);
});
