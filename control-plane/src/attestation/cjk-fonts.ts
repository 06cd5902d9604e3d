import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Fontkit from '@pdf-lib/fontkit';

/*
 * Chinese glyphs for reports (the bilingual disclaimer): Noto Sans SC (SIL Open Font License)
 * from @fontsource/noto-sans-sc, shipped as ~100 WOFF2 files of a few hundred glyphs each. The
 * file holding each character is found once per process and characters are drawn from their
 * outlines ({@link cjkGlyph}).
 */

let fontkitModule: typeof Fontkit | null = null;

/**
 * @pdf-lib/fontkit, loaded at the first CJK character drawn (it is a UMD bundle: loaded through
 * require, typed by its declarations; loading it costs ~100 ms, which the app's start never pays).
 */
function fontkit(): typeof Fontkit {
  fontkitModule ??= createRequire(import.meta.url)('@pdf-lib/fontkit') as typeof Fontkit;
  return fontkitModule;
}

const FILE = /^noto-sans-sc-\d+-400-normal\.woff2$/;
let files: Array<{ path: string; font: Fontkit.Font | null }> | null = null;
const byChar = new Map<number, string | null>();

function fontFiles(): Array<{ path: string; font: Fontkit.Font | null }> {
  if (!files) {
    const dir = join(dirname(createRequire(import.meta.url).resolve('@fontsource/noto-sans-sc/package.json')), 'files');
    files = readdirSync(dir).filter((f) => FILE.test(f)).sort().map((f) => ({ path: join(dir, f), font: null }));
  }
  return files;
}

/** The WOFF2 file (path) with a glyph for code point `cp`, or null when none has one. */
export function cjkFontFileFor(cp: number): string | null {
  if (byChar.has(cp)) return byChar.get(cp)!;
  let found: string | null = null;
  for (const f of fontFiles()) {
    f.font ??= fontkit().create(readFileSync(f.path)) as Fontkit.Font;
    if (f.font.hasGlyphForCodePoint(cp)) {
      found = f.path;
      break;
    }
  }
  byChar.set(cp, found);
  return found;
}

const glyphs = new Map<number, { svg: string; advance_em: number } | null>();

/**
 * The outline of code point `cp` as an SVG path in em units with y pointing down (pdf-lib's
 * drawSvgPath convention), and its advance width in em; null when no file has it. Drawn as
 * vector outlines: pdf-lib's subsetting of these files does not render in poppler.
 */
export function cjkGlyph(cp: number): { svg: string; advance_em: number } | null {
  if (glyphs.has(cp)) return glyphs.get(cp)!;
  const file = cjkFontFileFor(cp);
  let found: { svg: string; advance_em: number } | null = null;
  if (file) {
    const font = fontFiles().find((f) => f.path === file)!.font!;
    const g = font.glyphForCodePoint(cp);
    const em = 1 / font.unitsPerEm;
    // fontkit's Path has scale(); the declarations shipped with @pdf-lib/fontkit leave it out.
    const path = g.path as unknown as { scale(x: number, y: number): { toSVG(): string } };
    found = { svg: path.scale(em, -em).toSVG(), advance_em: g.advanceWidth * em };
  }
  glyphs.set(cp, found);
  return found;
}

