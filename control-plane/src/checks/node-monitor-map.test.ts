import t from 'tap';
import { NodeMonitorMap } from './node-monitor-map.js';

t.test('NodeMonitorMap keeps values per (node, monitor) and counts the pairs it holds', async (t) => {
  const m = new NodeMonitorMap<number>();
  t.equal(m.of('n1').get('m1'), undefined);
  t.equal(m.of('n1').size, 0, 'an unknown node has no values');
  m.set('n1', 'm1', 1);
  m.set('n1', 'm2', 2);
  m.set('n2', 'm1', 3);
  m.set('n1', 'm1', 4);
  t.equal(m.size, 3, 'setting a pair again does not count it twice');
  t.equal(m.of('n1').get('m1'), 4);
  t.equal(m.of('n2').get('m1'), 3, 'the same monitor on another node is another pair');
  t.same([...m.of('n1')], [['m1', 4], ['m2', 2]]);
  t.equal(m.of('n1/m1').get(''), undefined, 'ids are not joined: no key collides with a joined one');
  m.clear();
  t.equal(m.size, 0);
  t.equal(m.of('n1').get('m2'), undefined);
});
