import t from 'tap';
import { roundQuorum, roundVerdict } from './verdict.js';

t.test('default quorum: more than half of the placed nodes', async (t) => {
  t.same([1, 2, 3, 4, 5].map((n) => roundQuorum(n)), [1, 2, 2, 3, 3]);
  t.equal(roundQuorum(0), 1, 'never below 1');
});

t.test('down_quorum from config, capped at the placed nodes', async (t) => {
  t.equal(roundQuorum(5, 1), 1);
  t.equal(roundQuorum(5, 4), 4);
  t.equal(roundQuorum(2, 3), 2, 'a quorum above the placed nodes would never be met: all of them');
  t.equal(roundQuorum(3, 0), 2, '0 is not a quorum: the default');
  t.equal(roundQuorum(3, null), 2);
});

// [placed, down_quorum, reported, failed, verdict]: nodes that did not report are unknown, never failed.
const TABLE: Array<[number, number | null, number, number, string | null]> = [
  [1, null, 1, 0, 'up'], [1, null, 1, 1, 'down'], [1, null, 0, 0, 'no_data'],
  [2, null, 2, 0, 'up'], [2, null, 2, 1, 'degraded'], [2, null, 2, 2, 'down'], [2, null, 1, 1, 'degraded'], [2, 1, 2, 1, 'down'],
  [3, null, 3, 0, 'up'], [3, null, 3, 1, 'degraded'], [3, null, 3, 2, 'down'], [3, null, 3, 3, 'down'],
  [3, null, 1, 1, 'degraded'], [3, null, 2, 2, 'down'], [3, 1, 3, 1, 'down'], [3, 3, 3, 2, 'degraded'], [3, 3, 2, 2, 'degraded'],
  [4, null, 4, 2, 'degraded'], [4, null, 4, 3, 'down'], [4, 2, 4, 2, 'down'], [4, null, 3, 3, 'down'], [4, null, 2, 2, 'degraded'],
  [5, null, 5, 0, 'up'], [5, null, 5, 2, 'degraded'], [5, null, 5, 3, 'down'], [5, 5, 5, 4, 'degraded'], [5, 5, 5, 5, 'down'],
  [5, null, 3, 3, 'down'], [5, null, 2, 2, 'degraded'], [5, 1, 5, 1, 'down'], [5, 9, 5, 5, 'down'],
];

t.test('verdict table, 1-5 nodes and quorums', async (t) => {
  for (const [placed, dq, reported, failed, want] of TABLE) {
    t.equal(roundVerdict(failed, reported, roundQuorum(placed, dq)), want, `${failed}/${reported} of ${placed} placed, down_quorum ${dq ?? 'default'}`);
  }
});
