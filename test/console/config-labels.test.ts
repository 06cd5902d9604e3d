import t from 'tap';
import '@vantage/shared-protocol/parse';
import { MONITOR_CONFIGS } from '@vantage/shared-protocol/monitor-config';
import { PROBE_PARAMS } from '@vantage/shared-protocol/probe-params';
import { fieldsOf, type FieldSpec } from '../../control-plane/console/src/pages/monitor-form/schema-fields.js';
import { CONFIG_LABELS } from '../../control-plane/console/src/pages/monitor-form/config-labels.js';
import { toConfig, toRaw } from '../../control-plane/console/src/pages/monitor-form/config-values.js';

// The monitor and probe forms are read off the API's schemas (monitor config, probe params): every
// field of every type has a label in every locale, and an untouched form's value is what the schema
// accepts (the defaults) once its required fields are filled.

const keys = (fields: FieldSpec[]): string[] => fields.flatMap((f) => [f.key, ...('fields' in f ? keys(f.fields) : [])]);

for (const [type, schema] of [...Object.entries(MONITOR_CONFIGS), ...Object.entries(PROBE_PARAMS).map(([k, v]) => [`probe ${k}`, v] as const)]) {
  t.test(type, async (t) => {
    const fields = fieldsOf(schema);
    t.ok(fields.length > 0, 'the schema gives fields');
    for (const locale of ['en', 'cn', 'tw'] as const) {
      t.same(keys(fields).filter((k) => !CONFIG_LABELS[locale][k]), [], `${locale}: every field has a label`);
    }
    const untouched = toConfig(fields, toRaw(fields, null));
    // Valid, or missing only what the type requires (keyword's keyword).
    const parsed = schema.safeParse(untouched);
    t.same(parsed.success ? [] : parsed.error.issues.filter((i) => !(i.code === 'invalid_type' && (i as { input?: unknown }).input === undefined)), [], 'an untouched form is a valid config but for required fields');
  });
}
