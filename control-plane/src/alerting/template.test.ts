import t from 'tap';
import { ALERT_TEMPLATE_LIMITS } from '@vantage/shared-protocol';
import { ALERT_TEMPLATE_MODEL, DEFAULT_BODY_TEMPLATE, renderNotificationText } from './template-model.js';
import { compileTemplate, TemplateError } from './template.js';
import { renderTemplate } from './template-render.js';

const DATA = {
  Monitor: { ID: 'm_1', Name: 'API', Type: 'https', Target: 'https://api.example.com' }, Event: { ID: 'ae_1', Status: 'firing', Action: 'trigger', StartedAt: 'x', ResolvedAt: '' },
  State: 'down', PreviousState: 'up', Reason: '2 of 3 nodes failed', Policy: { ID: 'ap_1', Name: 'p' }, Level: 0,
  Nodes: [{ Name: 'fra-1', Country: 'DE', Error: 'timeout' }, { Name: 'sgp-1', Country: 'SG', Error: 'refused' }], Time: '2026-11-22T10:00:00Z',
};
const render = (src: string, data: object = DATA, max_chars = 10_000) => {
  const out = renderTemplate(compileTemplate(src, ALERT_TEMPLATE_MODEL), data, { max_chars, overflow: 'cut' });
  return out.ok ? out.text : `fault: ${out.fault}`;
};

t.test('Go text/template subset', async (t) => {
  t.equal(render('{{.Monitor.Name}} is {{ .State }}'), 'API is down');
  t.equal(render('{{if .Reason}}R: {{.Reason}}{{else}}none{{end}}'), 'R: 2 of 3 nodes failed');
  t.equal(render('{{if .Reason}}R{{else}}none{{end}}', { ...DATA, Reason: '' }), 'none');
  t.equal(render('{{if not .Reason}}none{{end}}', { ...DATA, Reason: '' }), 'none');
  t.equal(render('{{range .Nodes}}[{{.Name}} {{.Country}}]{{end}}'), '[fra-1 DE][sgp-1 SG]');
  t.equal(render('{{range .Nodes}}x{{else}}no nodes{{end}}', { ...DATA, Nodes: [] }), 'no nodes');
  t.equal(render('{{if .Nodes}}some{{end}}'), 'some', 'if on a list tests it once, never iterates');
  t.equal(render('{{with .Monitor}}{{.Name}}/{{.Type}}{{end}}'), 'API/https');
  t.equal(render('a {{- /* note */ -}} b'), 'ab', 'comments and trim markers');
  t.equal(render('{{.Monitor.Name}}', { ...DATA, Monitor: { ...DATA.Monitor, Name: '<b>{{.State}}</b>' } }), '<b>{{.State}}</b>', 'values are never parsed or HTML-escaped');
  t.equal(render('x{{.Reason}}', DATA, 5), 'x2 o…', 'output cut at the bound');
});

t.test('refused at compile time', async (t) => {
  for (const src of ['{{.Monitor.Nope}}', '{{.Monitor}}', '{{if .X}}', '{{end}}', '{{else}}', '{{range .State}}{{end}}', '{{printf "%d" 1}}', '{{.Monitor.Name | html}}', '{{template "x"}}', 'open {{', '{{.constructor}}', '{{.Monitor.__proto__}}', '{{ $x := 1 }}']) {
    t.throws(() => compileTemplate(src, ALERT_TEMPLATE_MODEL), TemplateError, src);
  }
});

t.test('the default templates render the documented model', async (t) => {
  const out = renderNotificationText({ title_template: null, body_template: null }, DATA);
  t.equal(out.title, '[down] API');
  t.match(out.body, /API \(https https:\/\/api\.example\.com\) is down, was up\.\nReason: 2 of 3 nodes failed\n- fra-1 \(DE\): timeout\n- sgp-1 \(SG\): refused\nAt 2026/);
  t.ok(DEFAULT_BODY_TEMPLATE.length > 0);
});

/** `{{range .Nodes}}` nested `depth` times around `{{.Name}}`: 2^depth iterations with 2 nodes, n^depth with n. */
const nestedRanges = (depth: number) => `${'{{range .Nodes}}'.repeat(depth)}{{.Name}}${'{{end}}'.repeat(depth)}`;
const manyNodes = (n: number) => ({ ...DATA, Nodes: Array.from({ length: n }, (_, i) => ({ Name: `node-${i}`, Country: 'DE', Error: 'timeout' })) });

t.test('a 40-level nested range (stored before the save-time bounds) renders at once: the default body and the reason', async (t) => {
  const data = manyNodes(5);
  const started = performance.now();
  const out = renderNotificationText({ title_template: '{{.Monitor.Name}}', body_template: nestedRanges(40) }, data);
  const elapsed_ms = performance.now() - started;
  t.ok(elapsed_ms < 500, `rendered in ${elapsed_ms.toFixed(1)} ms`);
  t.equal(out.title, 'API', 'the title template is still used');
  t.match(out.body, /^API \(https https:\/\/api\.example\.com\) is down, was up\.\nReason: 2 of 3 nodes failed\n- node-0 \(DE\): timeout\n/, 'the default body');
  t.match(out.body, /body_template was not used: .*nested/, 'the reason is in the body the user receives');
  t.match(out.template_fault, /^body_template: .*nested/, 'and given to the caller (logged, in the notification)');
});

t.test('nesting is bounded when a template is compiled (so when it is saved)', async (t) => {
  const { block_depth_max, range_depth_max } = ALERT_TEMPLATE_LIMITS;
  const ifs = (n: number) => `${'{{if .State}}'.repeat(n)}x${'{{end}}'.repeat(n)}`;
  t.equal(render(ifs(block_depth_max)), 'x', `${block_depth_max} nested blocks compile`);
  t.throws(() => compileTemplate(ifs(block_depth_max + 1), ALERT_TEMPLATE_MODEL), { name: 'TemplateError', message: /nested deeper than 8/ });
  t.equal(render(nestedRanges(range_depth_max)), 'fra-1sgp-1fra-1sgp-1', `${range_depth_max} nested ranges compile`);
  t.throws(() => compileTemplate(nestedRanges(range_depth_max + 1), ALERT_TEMPLATE_MODEL), { name: 'TemplateError', message: /range blocks nested deeper than 2/ });
  t.throws(() => compileTemplate(nestedRanges(40), ALERT_TEMPLATE_MODEL), TemplateError, 'the 40-level template of the report');
  const started = performance.now();
  t.throws(() => compileTemplate('{{'.repeat(8192), ALERT_TEMPLATE_MODEL), { message: 'unclosed {{' });
  t.ok(performance.now() - started < 200, 'an unclosed template of 16384 characters is refused in one pass (not quadratic)');
});

t.test('a render stops at its step budget whatever the nesting, and at its output bound', async (t) => {
  const tokens = compileTemplate(nestedRanges(2), ALERT_TEMPLATE_MODEL);
  const data = manyNodes(2000);
  const started = performance.now();
  const stopped = renderTemplate(tokens, data, { max_chars: 1_000_000, overflow: 'cut' });
  const elapsed_ms = performance.now() - started;
  t.ok(elapsed_ms < 1000, `stopped early (${elapsed_ms.toFixed(1)} ms)`);
  t.match(stopped, { ok: false, fault: new RegExp(`more than ${ALERT_TEMPLATE_LIMITS.render_steps_max} steps`) }, '2000 × 2000 iterations exceed the budget');
  t.match(renderTemplate(tokens, manyNodes(20), { max_chars: 1_000_000, overflow: 'cut' }), { ok: true, text: /^(node-\d+){400}$/ }, '20 × 20 fit');
  const long = compileTemplate('{{range .Nodes}}{{.Name}} {{.Error}}\n{{end}}', ALERT_TEMPLATE_MODEL);
  const cut = renderTemplate(long, data, { max_chars: 100, overflow: 'cut' });
  t.ok(cut.ok && cut.text.length === 100 && cut.text.endsWith('…'), 'cut at the bound');
  t.match(renderTemplate(long, data, { max_chars: 100, overflow: 'refuse' }), { ok: false, fault: /longer than 100 characters/ }, 'or refused');
  t.match(renderTemplate(long, data, { max_chars: 1_000_000, overflow: 'cut', max_steps: 50 }), { ok: false, fault: /more than 50 steps/ }, 'the budget is a parameter');
});

t.test('the default body of 100 failing nodes is well within the budget', async (t) => {
  const out = renderNotificationText({ title_template: null, body_template: null }, manyNodes(100));
  t.equal(out.template_fault, null);
  t.match(out.body, /- node-99 \(DE\): timeout/);
});
