import type { AlertChannelType } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';
import { tryCompileTemplate, type TemplateModel } from './template.js';
import { cut, renderOrFallback } from './template-render.js';

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

/** What an SMS gateway's `body_template` can use: the number, the message (title and body, ≤500) and the title. */
export const SMS_TEMPLATE_MODEL: TemplateModel = { Phone: 'value', Message: 'value', Title: 'value' };

/** The template fields of each channel type's config, with the model each is compiled against. */
export const CHANNEL_TEMPLATE_FIELDS: Partial<Record<AlertChannelType, Record<string, TemplateModel>>> = {
  sms: { body_template: SMS_TEMPLATE_MODEL },
};

/**
 * Check a policy's templates compile against ALERT_TEMPLATE_MODEL within ALERT_TEMPLATE_LIMITS.
 * @throws ApiError VALIDATION_FAILED naming `title_template` or `body_template` and the problem
 */
export function checkPolicyTemplates(t: { title_template?: string | null; body_template?: string | null }): void {
  for (const field of ['title_template', 'body_template'] as const) {
    const compiled = t[field] ? tryCompileTemplate(t[field], ALERT_TEMPLATE_MODEL) : null;
    if (compiled && !compiled.ok) throw new ApiError('VALIDATION_FAILED', `${field}: ${compiled.fault}`, { fields: [{ path: field, message: compiled.fault }] });
  }
}

/** The data of ALERT_TEMPLATE_MODEL, as far as the fixed fallback text reads it. */
export interface AlertTemplateData { Monitor: { Name: string }; State: string }

/**
 * Render a policy's title and body (its templates, or the defaults) with `data` (shaped as
 * ALERT_TEMPLATE_MODEL) through the bounded renderer, cut to TITLE_MAX_CHARS / BODY_MAX_CHARS.
 * A template that no longer compiles or that a render bound stops is replaced by the default
 * one; the body then ends with a note saying which template was not used and why, and
 * `template_fault` says the same for the caller to log. For the alert engine.
 */
export function renderNotificationText(p: { title_template: string | null; body_template: string | null }, data: AlertTemplateData): { title: string; body: string; template_fault: string | null } {
  const fixed = () => `[${data.State}] ${data.Monitor.Name}`;
  const title = renderOrFallback(p.title_template ?? DEFAULT_TITLE_TEMPLATE, ALERT_TEMPLATE_MODEL, data, { max_chars: TITLE_MAX_CHARS, overflow: 'cut' }, { template: DEFAULT_TITLE_TEMPLATE, fixed });
  const body = renderOrFallback(p.body_template ?? DEFAULT_BODY_TEMPLATE, ALERT_TEMPLATE_MODEL, data, { max_chars: BODY_MAX_CHARS, overflow: 'cut' }, { template: DEFAULT_BODY_TEMPLATE, fixed });
  const faults = ([['title_template', title.fault], ['body_template', body.fault]] as const).filter(([, fault]) => fault !== null);
  const oneLine = title.text.replace(/[\r\n]+/g, ' ').trim();
  if (faults.length === 0) return { title: oneLine, body: body.text, template_fault: null };
  const note = faults.map(([field, fault]) => `(This alert policy's ${field} was not used: ${fault}. The default template was rendered instead.)`).join('\n');
  return {
    title: oneLine,
    body: `${cut(body.text, BODY_MAX_CHARS - note.length - 2)}\n\n${note}`,
    template_fault: faults.map(([field, fault]) => `${field}: ${fault}`).join('; '),
  };
}
