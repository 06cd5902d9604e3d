import { ApiError } from '../errors.js';
import { compileTemplate, renderTemplate, TemplateError, type TemplateModel } from './template.js';

/**
 * The data a policy's title and body templates see (docs/api/alerting.md "Templates"):
 * `.Monitor` {ID, Name, Type, Target}, `.Event` {ID, Status (firing, acknowledged, resolved),
 * Action (trigger, acknowledge, resolve), StartedAt, ResolvedAt}, `.State` and `.PreviousState`
 * (monitor states), `.Reason`, `.Policy` {ID, Name}, `.Level` (0 first notification, else the
 * escalation level), `.Nodes` (a list of {Name, Country, Error}), `.Time` (ISO 8601 UTC).
 */
export const ALERT_TEMPLATE_MODEL: TemplateModel = {
  Monitor: { ID: 'value', Name: 'value', Type: 'value', Target: 'value' },
  Event: { ID: 'value', Status: 'value', Action: 'value', StartedAt: 'value', ResolvedAt: 'value' },
  State: 'value',
  PreviousState: 'value',
  Reason: 'value',
  Policy: { ID: 'value', Name: 'value' },
  Level: 'value',
  Nodes: [{ Name: 'value', Country: 'value', Error: 'value' }],
  Time: 'value',
};

/** The default templates (used when a policy's is null). */
export const DEFAULT_TITLE_TEMPLATE = '[{{.State}}] {{.Monitor.Name}}';
export const DEFAULT_BODY_TEMPLATE = '{{.Monitor.Name}} ({{.Monitor.Type}} {{.Monitor.Target}}) is {{.State}}{{if .PreviousState}}, was {{.PreviousState}}{{end}}.\n{{if .Reason}}Reason: {{.Reason}}\n{{end}}{{range .Nodes}}- {{.Name}} ({{.Country}}): {{.Error}}\n{{end}}At {{.Time}}';

/** Output bounds: a title fits every service's title field once cut there; a body fits a chat message. */
export const TITLE_MAX_CHARS = 256;
export const BODY_MAX_CHARS = 4000;

/**
 * Check a policy's templates compile against ALERT_TEMPLATE_MODEL.
 * @throws ApiError VALIDATION_FAILED naming `title_template` or `body_template` and the problem
 */
export function checkPolicyTemplates(t: { title_template?: string | null; body_template?: string | null }): void {
  for (const field of ['title_template', 'body_template'] as const) {
    const source = t[field];
    if (!source) continue;
    try {
      compileTemplate(source, ALERT_TEMPLATE_MODEL);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      throw new ApiError('VALIDATION_FAILED', `${field}: ${err.message}`, { fields: [{ path: field, message: err.message }] });
    }
  }
}

/**
 * Render a policy's title and body (its templates, or the defaults) with `data` (shaped as
 * ALERT_TEMPLATE_MODEL), cut to TITLE_MAX_CHARS / BODY_MAX_CHARS. For the alert engine.
 */
export function renderNotificationText(p: { title_template: string | null; body_template: string | null }, data: object): { title: string; body: string } {
  const title = renderTemplate(compileTemplate(p.title_template ?? DEFAULT_TITLE_TEMPLATE, ALERT_TEMPLATE_MODEL), data, { max_chars: TITLE_MAX_CHARS });
  const body = renderTemplate(compileTemplate(p.body_template ?? DEFAULT_BODY_TEMPLATE, ALERT_TEMPLATE_MODEL), data, { max_chars: BODY_MAX_CHARS });
  return { title: title.replace(/[\r\n]+/g, ' ').trim(), body };
}
