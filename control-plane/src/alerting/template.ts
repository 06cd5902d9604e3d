import { ALERT_TEMPLATE_LIMITS } from '@vantage/shared-protocol';

/**
 * Notification templates in Go text/template syntax (docs/api/alerting.md "Templates"), a
 * documented subset: `{{.Field.Path}}`, `{{.}}`, `{{if .X}}…{{else}}…{{end}}`,
 * `{{if not .X}}`, `{{range .List}}…{{else}}…{{end}}`, `{{with .X}}…{{end}}`, comments
 * `{{/* … *\/}}` and the trim markers `{{- ` / ` -}}`. A template is compiled once against a
 * data model (every field path is checked, so a typo is refused when the policy is saved) into
 * mustache tokens, rendered by mustache's Writer: no code is evaluated, no partials, no lambdas.
 * Every template is bounded (ALERT_TEMPLATE_LIMITS): its blocks' nesting when compiled, its steps
 * and its output when rendered, so no template and no data can hold the event loop.
 */

/** A data model: a field is `'value'` (string, number or boolean), a nested model, or `[model]` (a list). */
export type TemplateModel = { [field: string]: 'value' | TemplateModel | [TemplateModel | 'value'] };

/** A compile error with where it happened. */
export class TemplateError extends Error {
  override name = 'TemplateError';
}

type Token = [string, string, number, number, Token[]?, number?];
/** A compiled template: mustache tokens (`text`, `name`, `#` and `^` sections only). */
export type TemplateTokens = Token[];
type Scope = TemplateModel | 'value';
interface Frame { kind: 'if' | 'range' | 'with'; key: string; negated: boolean; body: Token[]; alt: Token[] | null; scope: Scope }

const TRIM_LEFT = /^-[ \t\r\n]/;
const TRIM_RIGHT = /[ \t\r\n]-$/;

/**
 * Each `{{…}}` of `source` in order: where it starts and ends, its inside without trim markers,
 * and which side trims. One pass with indexOf (a backtracking pattern over `{{{{…` with no
 * closing braces is quadratic); stops at a `{{` with no `}}` after it.
 */
function* actions(source: string): Generator<{ start: number; end: number; inner: string; trim_left: boolean; trim_right: boolean }> {
  let at = 0;
  for (;;) {
    const start = source.indexOf('{{', at);
    if (start < 0) return;
    const close = source.indexOf('}}', start + 2);
    if (close < 0) return;
    let inner = source.slice(start + 2, close);
    const trim_left = TRIM_LEFT.test(inner);
    if (trim_left) inner = inner.slice(2);
    const trim_right = TRIM_RIGHT.test(inner);
    if (trim_right) inner = inner.slice(0, -2);
    yield { start, end: close + 2, inner, trim_left, trim_right };
    at = close + 2;
  }
}

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

/** @throws TemplateError when the open blocks nest deeper than ALERT_TEMPLATE_LIMITS allows. */
function checkNesting(stack: Frame[]): void {
  const { block_depth_max, range_depth_max } = ALERT_TEMPLATE_LIMITS;
  if (stack.length > block_depth_max) throw new TemplateError(`blocks (if, range, with) nested deeper than ${block_depth_max}`);
  if (stack.filter((f) => f.kind === 'range').length > range_depth_max) throw new TemplateError(`range blocks nested deeper than ${range_depth_max}`);
}

function mustacheKey(path: string): string {
  return path === '.' ? '.' : path.slice(1);
}

/**
 * Compile `source` against `model`.
 * @throws TemplateError on a syntax error, an unknown field, an unsupported action, `range` over
 *         a non-list, an unclosed block, or blocks nested deeper than ALERT_TEMPLATE_LIMITS
 *         (`block_depth_max` blocks, `range_depth_max` ranges)
 */
export function compileTemplate(source: string, model: TemplateModel): TemplateTokens {
  const root: Token[] = [];
  const stack: Frame[] = [];
  let out = root;
  let scope: Scope = model;
  let last = 0;
  let trimNext = false;
  const pushText = (text: string) => { if (text) out.push(['text', text, 0, 0]); };
  let text = '';
  for (const m of actions(source)) {
    text = source.slice(last, m.start);
    if (trimNext) text = text.trimStart();
    if (m.trim_left) text = text.trimEnd();
    pushText(text);
    last = m.end;
    trimNext = m.trim_right;
    const action = m.inner.trim();
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
      checkNesting(stack);
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

/** tryCompileTemplate's answer. */
export type CompiledTemplate = { ok: true; tokens: TemplateTokens } | { ok: false; fault: string };

/** Sources compiled per model, kept for reuse; a model's map is emptied when it reaches COMPILED_MAX. */
const compiled = new WeakMap<TemplateModel, Map<string, CompiledTemplate>>();
const COMPILED_MAX = 500;

/**
 * compileTemplate's answer as a value: the tokens, or why `source` cannot be used (the
 * TemplateError's message). Answers are kept per (model, source) and shared, so the tokens must
 * not be changed (renderTemplate only reads them): a storm of pages renders a few policies'
 * templates thousands of times.
 */
export function tryCompileTemplate(source: string, model: TemplateModel): CompiledTemplate {
  let byModel = compiled.get(model);
  if (!byModel) compiled.set(model, byModel = new Map());
  const known = byModel.get(source);
  if (known) return known;
  let answer: CompiledTemplate;
  try {
    answer = { ok: true, tokens: compileTemplate(source, model) };
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    answer = { ok: false, fault: err.message };
  }
  if (byModel.size >= COMPILED_MAX) byModel.clear();
  byModel.set(source, answer);
  return answer;
}
