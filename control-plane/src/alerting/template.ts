import Mustache from 'mustache';

/**
 * Notification templates in Go text/template syntax (docs/api/alerting.md "Templates"), a
 * documented subset: `{{.Field.Path}}`, `{{.}}`, `{{if .X}}…{{else}}…{{end}}`,
 * `{{if not .X}}`, `{{range .List}}…{{else}}…{{end}}`, `{{with .X}}…{{end}}`, comments
 * `{{/* … *\/}}` and the trim markers `{{- ` / ` -}}`. A template is compiled once against a
 * data model (every field path is checked, so a typo is refused when the policy is saved) into
 * mustache tokens, rendered by mustache's Writer: no code is evaluated, no partials, no lambdas,
 * and the output is cut at a bound.
 */

/** A data model: a field is `'value'` (string, number or boolean), a nested model, or `[model]` (a list). */
export type TemplateModel = { [field: string]: 'value' | TemplateModel | [TemplateModel | 'value'] };

/** A compile error with where it happened. */
export class TemplateError extends Error {
  override name = 'TemplateError';
}

type Token = [string, string, number, number, Token[]?, number?];
type Scope = TemplateModel | 'value';
interface Frame { kind: 'if' | 'range' | 'with'; key: string; negated: boolean; body: Token[]; alt: Token[] | null; scope: Scope }

const ACTION = /\{\{(-[ \t\r\n])?([\s\S]*?)([ \t\r\n]-)?\}\}/g;
const FIELD = /^(\.|(\.[A-Za-z_][A-Za-z0-9_]*)+)$/;

/** Resolve `.A.B` in `scope`; @returns the model of what it names. */
function resolve(path: string, scope: Scope, root: TemplateModel): Scope | [TemplateModel | 'value'] {
  if (path === '.') return scope;
  let at: TemplateModel | 'value' | [TemplateModel | 'value'] = scope;
  const names = path.slice(1).split('.');
  for (const [i, name] of names.entries()) {
    const from: unknown = i === 0 && (at === 'value' || !Object.hasOwn(at as object, name)) ? root : at;
    if (from === 'value' || Array.isArray(from) || !Object.hasOwn(from as object, name)) {
      throw new TemplateError(`unknown field ${path} (no ${name} there)`);
    }
    at = (from as TemplateModel)[name]!;
  }
  return at;
}

function mustacheKey(path: string): string {
  return path === '.' ? '.' : path.slice(1);
}

/**
 * Compile `source` against `model`.
 * @throws TemplateError on a syntax error, an unknown field, an unsupported action, `range` over
 *         a non-list or an unclosed block
 */
export function compileTemplate(source: string, model: TemplateModel): Token[] {
  const root: Token[] = [];
  const stack: Frame[] = [];
  let out = root;
  let scope: Scope = model;
  let last = 0;
  let trimNext = false;
  const pushText = (text: string) => { if (text) out.push(['text', text, 0, 0]); };
  let text = '';
  for (const m of source.matchAll(ACTION)) {
    text = source.slice(last, m.index);
    if (trimNext) text = text.trimStart();
    if (m[1]) text = text.trimEnd();
    pushText(text);
    last = m.index + m[0].length;
    trimNext = Boolean(m[3]);
    const action = m[2]!.trim();
    if (action.startsWith('/*') && action.endsWith('*/')) continue;
    const [word, ...rest] = action.split(/\s+/);
    const arg = rest.join(' ');
    if (word === 'end' && rest.length === 0) {
      const f = stack.pop();
      if (!f) throw new TemplateError('{{end}} without a block');
      out = stack.length ? (stack[stack.length - 1]!.alt ?? stack[stack.length - 1]!.body) : root;
      scope = f.scope;
      const sym = f.negated ? '^' : '#';
      out.push([sym, f.key, 0, 0, f.body, 0]);
      if (f.alt) out.push([f.negated ? '#' : '^', f.key, 0, 0, f.alt, 0]);
      continue;
    }
    if (word === 'else' && rest.length === 0) {
      const f = stack[stack.length - 1];
      if (!f || f.alt) throw new TemplateError('{{else}} outside a block or twice in one');
      if (f.kind === 'with') throw new TemplateError('{{else}} in {{with}} is not supported');
      f.alt = [];
      out = f.alt;
      scope = f.scope;
      continue;
    }
    if (word === 'if' || word === 'range' || word === 'with') {
      const negated = word === 'if' && rest[0] === 'not';
      const path = negated ? rest.slice(1).join(' ') : arg;
      if (!FIELD.test(path)) throw new TemplateError(`{{${word}}} takes one field such as .Monitor.Name${word === 'if' ? ' (or not .Field)' : ''}, got "${arg}"`);
      const target = resolve(path, scope, model);
      const list = Array.isArray(target);
      if (word === 'range' && !list) throw new TemplateError(`{{range ${path}}}: ${path} is not a list`);
      if (word === 'with' && (list || target === 'value')) throw new TemplateError(`{{with ${path}}}: ${path} is not an object`);
      // mustache iterates a list in a section; Go's `if` only tests it, so a list is tested by its length.
      const key = word === 'if' && list ? `${mustacheKey(path)}.length` : mustacheKey(path);
      const frame: Frame = { kind: word, key, negated, body: [], alt: null, scope };
      stack.push(frame);
      out = frame.body;
      if (word === 'range') scope = (target as [TemplateModel | 'value'])[0];
      else if (word === 'with') scope = target as TemplateModel;
      continue;
    }
    if (FIELD.test(action)) {
      const target = resolve(action, scope, model);
      if (target !== 'value' && !(action === '.' && scope === 'value')) throw new TemplateError(`${action} is not a value (use its fields)`);
      out.push(['name', mustacheKey(action), 0, 0]);
      continue;
    }
    throw new TemplateError(`unsupported action {{${action}}}: use {{.Field}}, if, else, end, range, with or a comment`);
  }
  text = source.slice(last);
  if (trimNext) text = text.trimStart();
  if (/\{\{/.test(text)) throw new TemplateError('unclosed {{');
  pushText(text);
  if (stack.length) throw new TemplateError(`{{${stack[stack.length - 1]!.kind}}} without {{end}}`);
  return root;
}

const writer = new Mustache.Writer();

/**
 * Render compiled `tokens` with `data`; each `{{.Field}}` value goes through `escape` (identity
 * for chat text; JSON or URL encoding for an SMS gateway body). The result is cut to `max_chars`.
 */
export function renderTemplate(tokens: Token[], data: object, opts: { max_chars: number; escape?: (v: string) => string }): string {
  const escape = opts.escape ?? ((v: string) => v);
  const out = writer.renderTokens(tokens as never, new Mustache.Context(data as never), undefined, undefined, { escape: (v: unknown) => escape(String(v)) } as never) ?? '';
  return out.length > opts.max_chars ? `${out.slice(0, opts.max_chars - 1)}…` : out;
}
