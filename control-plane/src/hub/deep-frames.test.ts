import t from 'tap';
import { LIMITS, newId } from '@vantage/shared-protocol';
import { testDatabase } from '../test-support/db.js';
import { enrollNode, makeToken, recordingSink, startHub } from './test-harness.js';

const { url, sql } = await testDatabase(t);
const sink = recordingSink();
const { base } = await startHub(t, sql, url, { instance_id: 'hub-test-deep' }, sink);

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A tcp monitor result whose one assertion reports `actual_json` (JSON text) as its actual value. */
function monitorResultText(monitor_id: string, actual_json: string): { result_id: string; text: string } {
  const at = new Date().toISOString();
  const result_id = newId('result');
  const fields = {
    result_id, task_id: null, monitor_id, type: 'tcp', scheduled_at: at, started_at: at, finished_at: at, success: true,
    error: null, error_class: null,
    output: { resolved_address: '198.18.0.10', port: 443, connect_ms: 0.4, state: 'open', expected: 'open', banner: null, banner_matched: null },
  };
  const assertion = `{"type":"response_time","op":"lt","expected":1000,"ok":true,"detail":"ok","actual":${actual_json}}`;
  return { result_id, text: `${JSON.stringify(fields).slice(0, -1)},"assertions":[${assertion}]}` };
}

t.test('a node message nested past the bound costs only itself: error frame naming where, the link stays up', async (t) => {
  const { node, node_id } = await enrollNode(base, await makeToken(sql));
  t.teardown(() => node.close());
  const monitor_id = newId('monitor');
  sink.assign(monitor_id, node_id);

  // 100,000 levels in 200 KB: under the size bound; a recursive walk of it exhausts the stack.
  const deep = monitorResultText(monitor_id, nested(100_000));
  node.send(`{"type":"result.batch","batch_id":1,"results":[${deep.text}]}`);
  const refused = await node.next('error');
  t.match(refused, { code: 'VALIDATION_FAILED', message: new RegExp(`results\\[0\\]\\.assertions\\[0\\]\\.actual(\\[0\\])+: nested deeper than ${LIMITS.ws_message_depth_max} levels`) });
  t.notOk(sink.stored.has(deep.result_id), 'nothing stored');

  // The deepest valid message (an assertion actual of 500 characters of nested JSON) is stored and acked.
  const deepest_valid = monitorResultText(monitor_id, nested(250));
  node.send(`{"type":"result.batch","batch_id":2,"results":[${deepest_valid.text}]}`);
  t.same((await node.next('result.ack')).result_ids, [deepest_valid.result_id], 'the link is up and serves the next message');
  t.ok(sink.stored.has(deepest_valid.result_id));
  t.equal(node.ws.readyState, node.ws.OPEN);
});
