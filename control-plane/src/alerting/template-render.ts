import Mustache from 'mustache';
import { ALERT_TEMPLATE_LIMITS } from '@vantage/shared-protocol';
import { tryCompileTemplate, type TemplateModel, type TemplateTokens } from './template.js';

/*
 * The one bounded renderer of notification templates (docs/api/alerting.md "Templates"). Blocks
 * nested in a template multiply its work (n items in k nested ranges are n^k iterations), so a
 * render counts every token it visits and every character it writes, and stops at a bound:
 * its total work is bounded whatever the template and the data.
 */

/** The bounds of one render. */
export interface RenderBounds {
  /** Longest output, characters. */
  max_chars: number;
  /**
   * A longer output: `cut` stops writing there and ends the text with an ellipsis (chat text);
   * `refuse` fails the render (a cut JSON or form body would be broken).
   */
  overflow: 'cut' | 'refuse';
  /** Tokens one render may visit; default ALERT_TEMPLATE_LIMITS.render_steps_max. */
  max_steps?: number;
  /** Applied to each `{{.Field}}` value (default: inserted as is). */
  escape?: (value: string) => string;
}

/** A render's text, or why it was stopped. */
export type Rendered = { ok: true; text: string } | { ok: false; fault: string };

class RenderStopped extends Error {}

/** Cut `text` to `max` characters (an ellipsis marks the cut). */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * mustache's Writer with budgets. Every section iteration and every block goes through
 * `renderTokens` and every piece of output through `rawValue` or `escapedValue` (the only token
 * kinds compileTemplate emits), so counting there bounds both the work and the output.
 */
class BoundedWriter extends Mustache.Writer {
  private steps = 0;
  private chars = 0;
  private full = false;

  constructor(private readonly bounds: Required<Pick<RenderBounds, 'max_chars' | 'overflow' | 'max_steps'>>) {
    super();
  }

  override renderTokens(tokens: string[][], context: Mustache.Context, partials?: Mustache.PartialsOrLookupFn, original?: string, config?: Mustache.RenderOptions): string {
    if (this.full) return '';
    this.steps += tokens.length;
    if (this.steps > this.bounds.max_steps) throw new RenderStopped(`the render needs more than ${this.bounds.max_steps} steps (nested range blocks multiply their iterations)`);
    return super.renderTokens(tokens, context, partials, original, config);
  }

  override rawValue(token: string[]): string {
    return this.full ? '' : this.emit(super.rawValue(token));
  }

  override escapedValue(token: string[], context: Mustache.Context, config?: Mustache.RenderOptions): string {
    return this.full ? '' : this.emit(super.escapedValue(token, context, config));
  }

  private emit(piece: string | undefined): string {
    if (piece === undefined) return '';
    this.chars += piece.length;
    if (this.chars > this.bounds.max_chars) {
      if (this.bounds.overflow === 'refuse') throw new RenderStopped(`the output is longer than ${this.bounds.max_chars} characters`);
      this.full = true;
    }
    return piece;
  }
}

/**
 * Render compiled `tokens` with `data` within `bounds`: at most `max_steps` token visits and
 * `max_chars` characters of output (cut with an ellipsis, or refused, per `overflow`).
 * @returns the text, or `{ok: false, fault}` saying which bound stopped the render
 */
export function renderTemplate(tokens: TemplateTokens, data: object, bounds: RenderBounds): Rendered {
  const escape = bounds.escape ?? ((v: string) => v);
  const writer = new BoundedWriter({ max_chars: bounds.max_chars, overflow: bounds.overflow, max_steps: bounds.max_steps ?? ALERT_TEMPLATE_LIMITS.render_steps_max });
  try {
    const out = writer.renderTokens(tokens as string[][], new Mustache.Context(data), undefined, undefined, { escape: (v: unknown) => escape(String(v)) });
    return { ok: true, text: cut(out, bounds.max_chars) };
  } catch (err) {
    if (err instanceof RenderStopped) return { ok: false, fault: err.message };
    throw err;
  }
}

/** What is rendered when a template cannot be: a default template, and text for when even that is stopped. */
export interface TemplateFallback {
  /** A template that compiles against the model (the documented default). */
  template: string;
  /** Plain text naming the event, within the bounds. */
  fixed: () => string;
  /** The data the default template renders (default: the same data), e.g. with the fault in the message. */
  data?: (fault: string) => object;
}

/**
 * Render `source` compiled against `model` within `bounds`: the path every notification
 * template takes (policy titles and bodies, SMS bodies). A source that does not compile (stored
 * before today's rules) or that a bound stops is replaced by `fallback.template`, and that, if
 * stopped too, by `fallback.fixed()`.
 * @returns the text, and `fault`: why `source` was not used (null when it was)
 */
export function renderOrFallback(source: string, model: TemplateModel, data: object, bounds: RenderBounds, fallback: TemplateFallback): { text: string; fault: string | null } {
  const first = compileAndRender(source, model, data, bounds);
  if (first.ok) return { text: first.text, fault: null };
  const second = source === fallback.template ? first : compileAndRender(fallback.template, model, fallback.data?.(first.fault) ?? data, bounds);
  return { text: second.ok ? second.text : cut(fallback.fixed(), bounds.max_chars), fault: first.fault };
}

function compileAndRender(source: string, model: TemplateModel, data: object, bounds: RenderBounds): Rendered {
  const compiled = tryCompileTemplate(source, model);
  return compiled.ok ? renderTemplate(compiled.tokens, data, bounds) : compiled;
}
