import t from 'tap';
import { replayStates, type ReplayRound } from './replay.js';

const r = (at_ms: number, verdict: ReplayRound['verdict']): ReplayRound => ({ at_ms, verdict });

t.test('verdicts in order become transitions', async (t) => {
  const out = replayStates('pending', [r(0, 'up'), r(60, 'up'), r(120, 'down'), r(180, 'down'), r(240, 'degraded'), r(300, 'up')], []);
  t.same(out.transitions.map((x) => [x.at_ms, x.from, x.to]), [[0, 'pending', 'up'], [120, 'up', 'down'], [240, 'down', 'degraded'], [300, 'degraded', 'up']]);
  t.equal(out.final, 'up');
  t.same(out.counted, [true, true, true, true, true, true]);
});

t.test('paused and maintenance hold the state; their rounds are not counted; pending after resume', async (t) => {
  const out = replayStates('up', [r(0, 'down'), r(60, 'down'), r(120, 'down'), r(180, 'up')], [
    { at_ms: 0, to_state: 'maintenance' }, { at_ms: 100, to_state: 'pending' },
  ]);
  t.same(out.counted, [false, false, true, true], 'the rounds at 0 and 60 fell in maintenance (a change at a round\'s instant applies first)');
  t.same(out.transitions.map((x) => [x.at_ms, x.from, x.to]), [[120, 'pending', 'down'], [180, 'down', 'up']]);
  const paused = replayStates('up', [r(60, 'down')], [{ at_ms: 30, to_state: 'paused' }]);
  t.equal(paused.final, 'paused', 'a late round inside a pause does not unpause');
  t.same(paused.transitions, []);
});

t.test('a round filled in late replays the same history whatever the judging order', async (t) => {
  const rounds = [r(0, 'up'), r(60, 'down'), r(120, 'down'), r(180, 'up')];
  const all = replayStates('pending', rounds, []);
  const before = replayStates('pending', [rounds[0]!, rounds[3]!], []);
  t.same(before.transitions.map((x) => x.to), ['up'], 'without the late rounds: up all along');
  t.same(all.transitions.map((x) => [x.at_ms, x.to]), [[0, 'up'], [60, 'down'], [180, 'up']], 'with them: the down spell appears');
});

t.test('rounds in a maintenance window: not counted, state maintenance until a round outside', async (t) => {
  const out = replayStates('up', [r(0, 'up'), { ...r(60, 'down'), maintenance: true }, { ...r(120, 'down'), maintenance: true }, r(180, 'down'), r(240, 'up')], []);
  t.same(out.counted, [true, false, false, true, true]);
  t.same(out.transitions.map((x) => [x.at_ms, x.from, x.to]), [[60, 'up', 'maintenance'], [180, 'maintenance', 'down'], [240, 'down', 'up']]);
  const resumed = replayStates('maintenance', [r(0, 'up')], [], false);
  t.same(resumed.transitions.map((x) => x.to), ['up'], 'maintenance set by window rounds ends with the next round outside');
  const manual = replayStates('maintenance', [r(0, 'up')], []);
  t.same(manual.transitions, [], 'maintenance set by hand holds');
  t.equal(manual.final, 'maintenance');
});
