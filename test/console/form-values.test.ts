import t from 'tap';
import { newId, statusPageCreateSchema, statusPagePatchSchema, widgetInputSchema } from '@vantage/shared-protocol';
import { METRICS_OF_TYPE, WIDGET_TYPE_LIST } from '../../control-plane/console/src/api/vocabulary.js';
import { bodyOf, emptyValues, valuesOf } from '../../control-plane/console/src/pages/status-page-form/page-values.js';
import { firstFreeRow, newRow, rowOf, widgetOf } from '../../control-plane/console/src/pages/dashboard-widgets/widget-rows.js';

// The console's status page form and widget editor turn their inputs into API bodies: what they
// send is checked here against the API's own request schemas (shared-protocol), for every widget
// type and every metric it can draw, and read back from a stored widget unchanged.

t.test('every widget type and metric the editor offers is a widget the API accepts', async (t) => {
  const monitor = newId('monitor');
  for (const type of WIDGET_TYPE_LIST) {
    const metrics: readonly string[] = METRICS_OF_TYPE[type];
    for (const metric of metrics.length ? metrics : ['']) {
      const row = { ...newRow(type, 3, 12), metric: metric as never, monitor_ids: [monitor], title: `${type} ${metric}` };
      const out = widgetOf(row);
      t.ok('widget' in out, `${type}/${metric || 'none'} is built`);
      if (!('widget' in out)) continue;
      const parsed = widgetInputSchema.safeParse(out.widget);
      t.ok(parsed.success, `${type}/${metric || 'none'} passes the API's widget schema`, { issues: parsed.error?.issues });
    }
  }
});

t.test('a new row starts below the others, with a metric that needs no monitor where its type allows', async (t) => {
  const rows = [newRow('stat', 0, 12), { ...newRow('table', 2, 12), h: '5' }];
  t.equal(firstFreeRow(rows), 7, 'under the lowest widget');
  t.equal(newRow('timeseries', 0, 12).metric, 'uptime');
  t.equal(newRow('stat', 0, 4).w, '4', 'no wider than the grid');
  t.equal(newRow('text', 0, 12).metric, '');
});

t.test('a stored widget is read into a row and sent back as it was', async (t) => {
  const stored = [
    { id: newId('widget'), type: 'gauge' as const, title: 'Uptime', position: { x: 3, y: 0, w: 3, h: 2 }, data_source: { kind: 'monitor', metric: 'uptime' }, options: { min: 90, max: 100, thresholds: [99, 99.9] } },
    { id: newId('widget'), type: 'table' as const, title: 'Nodes', position: { x: 0, y: 2, w: 12, h: 5 }, data_source: { kind: 'node', metric: 'directory', mine: true }, options: { limit: 50 } },
    { id: newId('widget'), type: 'text' as const, title: 'Runbook', position: { x: 0, y: 7, w: 6, h: 2 }, data_source: null, options: { markdown: '# Call ops' } },
  ];
  for (const w of stored) {
    const out = widgetOf(rowOf(w));
    const back = 'widget' in out ? out.widget : null;
    // A text widget has no data source: the editor leaves the field out, as the API allows.
    const { data_source, ...rest } = w;
    t.same(back, data_source ? w : rest, `${w.type}: the same widget`);
  }
});

t.test('options that are not a JSON object are the row\'s fault, nothing else', async (t) => {
  const row = newRow('stat', 0, 12);
  for (const bad of ['{decimals: 1', '[1, 2]', '"text"', 'null']) t.same(widgetOf({ ...row, options: bad }), { fault: 'options' }, bad);
  t.ok('widget' in widgetOf({ ...row, options: ' ' }), 'blank options are none');
});

t.test('the status page form sends what the API accepts, and keeps a protected page\'s password unless typed', async (t) => {
  const values = {
    ...emptyValues(), slug: 'acme', title: 'Acme', custom_domain: ' status.example.com ', logo_url: '', history_days: '30',
    components: [
      { key: 1, source: `m:${newId('monitor')}`, display_name: ' API ', section: 'Core' },
      { key: 2, source: `g:${newId('monitor_group')}`, display_name: '', section: '' },
      { key: 3, source: '', display_name: 'never chosen', section: '' },
    ],
  };
  const body = bodyOf(values);
  t.ok(statusPageCreateSchema.safeParse(body).success, 'a public page: the create schema accepts it');
  t.match(body, { custom_domain: 'status.example.com', logo_url: null, history_days: 30 });
  t.same((body.components as unknown[]).length, 2, 'a row without a monitor or group is not sent');
  t.same((body.components as Array<Record<string, unknown>>)[0], { monitor_id: values.components[0]!.source.slice(2), display_name: 'API', section: 'Core' });
  t.notOk('display_name' in (body.components as Array<Record<string, unknown>>)[1]!, 'a blank display name is left to the API (the group\'s name)');

  const locked = bodyOf({ ...values, is_public: false, password: 'correct horse' });
  t.equal(locked.password, 'correct horse');
  t.ok(statusPageCreateSchema.safeParse(locked).success, 'a protected page with its password');
  const kept = bodyOf({ ...values, is_public: false, password: '' });
  t.notOk('password' in kept, 'a blank password is not sent, so a PATCH keeps the saved one');
  t.ok(statusPagePatchSchema.safeParse(kept).success, 'the patch schema accepts it');
  t.notOk('password' in bodyOf({ ...values, is_public: true, password: 'ignored once public' }), 'a public page sends no password');
});

t.test('a saved status page fills the form', async (t) => {
  const sp = {
    id: newId('status_page'), team_id: null, slug: 'acme', title: 'Acme', description: '', custom_domain: null, theme: 'dark' as const, logo_url: null,
    is_public: false, password_protected: true, history_days: 60, page_url: 'http://x/status/acme', created_by: 'u', created_at: '', updated_at: '',
    components: [{ id: newId('status_page_component'), monitor_id: null, group_id: newId('monitor_group'), display_name: 'Edge', section: 'Net', position: 0 }],
  };
  const v = valuesOf(sp);
  t.match(v, { slug: 'acme', theme: 'dark', custom_domain: '', is_public: false, password: '', history_days: '60' });
  t.equal(v.components[0]!.source, `g:${sp.components[0]!.group_id}`);
});
