import t from 'tap';
import { ALERT_TEMPLATE_MODEL, DEFAULT_BODY_TEMPLATE, renderNotificationText } from './template-model.js';
import { compileTemplate, renderTemplate, TemplateError } from './template.js';

const DATA = {
  Monitor: { ID: 'm_1', Name: 'API', Type: 'https', Target: 'https://api.example.com' }, Event: { ID: 'ae_1', Status: 'firing', Action: 'trigger', StartedAt: 'x', ResolvedAt: '' },
  State: 'down', PreviousState: 'up', Reason: '2 of 3 nodes failed', Policy: { ID: 'ap_1', Name: 'p' }, Level: 0,
  Nodes: [{ Name: 'fra-1', Country: 'DE', Error: 'timeout' }, { Name: 'sgp-1', Country: 'SG', Error: 'refused' }], Time: '2026-11-22T10:00:00Z',
};
const render = (src: string, data: object = DATA, max_chars = 10_000) => renderTemplate(compileTemplate(src, ALERT_TEMPLATE_MODEL), data, { max_chars });

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
