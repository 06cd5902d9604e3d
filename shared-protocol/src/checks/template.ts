/*
 * `payload_template` of llm_endpoint, tool_api and rag monitors (docs/api/checks.md "Payload
 * templates"): a JSON object sent as the request body, in which `{{name}}` placeholders inside
 * string values (and keys) are replaced by a fixed set of variables. Plain substitution: no
 * expressions, conditions, loops or code of any kind.
 */

/** The variables a template may use, with what each becomes. */
export const TEMPLATE_VARIABLES = {
  model_name: 'the config `model_name` (empty when unset)',
  monitor_id: 'the monitor id (m_…)',
  scheduled_at: 'the round\'s scheduled time, ISO 8601 UTC',
  timestamp: 'when the request is built, ISO 8601 UTC',
  target: 'the monitor target URL',
} as const;
export type TemplateVariable = keyof typeof TEMPLATE_VARIABLES;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
/** Deepest nesting a template may have (arrays and objects). */
export const TEMPLATE_DEPTH_MAX = 32;

function walk(value: unknown, depth: number, onText: (text: string) => string): unknown {
  if (depth > TEMPLATE_DEPTH_MAX) throw new RangeError(`nested deeper than ${TEMPLATE_DEPTH_MAX} levels`);
  if (typeof value === 'string') return onText(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1, onText));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [onText(k), walk(v, depth + 1, onText)]));
  }
  return value;
}

/**
 * Why `template` cannot be used, or null: a placeholder naming an unknown variable, or nesting
 * deeper than TEMPLATE_DEPTH_MAX.
 * @example templateFault({ "model": "{{model}}" }) // 'unknown template variable {{model}}; known: model_name, …'
 */
export function templateFault(template: unknown): string | null {
  const unknown = new Set<string>();
  try {
    walk(template, 0, (text) => {
      for (const m of text.matchAll(PLACEHOLDER)) if (!Object.hasOwn(TEMPLATE_VARIABLES, m[1]!)) unknown.add(m[1]!);
      return text;
    });
  } catch (err) {
    return (err as Error).message;
  }
  if (unknown.size === 0) return null;
  return `unknown template variable ${[...unknown].map((u) => `{{${u}}}`).join(', ')}; known: ${Object.keys(TEMPLATE_VARIABLES).join(', ')}`;
}

/**
 * A copy of `template` with every `{{name}}` replaced by `vars[name]` (an unknown name is left
 * as written; templateFault refuses those up front). Strings only: the JSON structure around
 * them is kept as it is, so a variable's value can never change the shape of the payload.
 * @example renderTemplate({ model: '{{model_name}}', messages: [{ role: 'user', content: 'ping' }] }, { model_name: 'gpt-x', … })
 */
export function renderTemplate(template: unknown, vars: Record<TemplateVariable, string>): unknown {
  return walk(template, 0, (text) => text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(vars, name) ? vars[name as TemplateVariable] : whole)));
}
