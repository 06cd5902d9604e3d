import type { Color, PDFDocument, PDFFont, PDFName, PDFPage, PDFString } from 'pdf-lib';
import { cjkGlyph } from './cjk-fonts.js';
import { SEAL_KEY, SEAL_PLACEHOLDER } from './seal.js';

/*
 * A small report writer over pdf-lib: A4 pages, headings, wrapped paragraphs (Latin in
 * Helvetica, Chinese as Noto Sans SC outlines) and tables, and a document written with the
 * seal placeholder (seal.ts) ready to be signed (sign.ts).
 */

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;

/** The writer's colours: text, footers and notes, a table's shaded rows. */
interface Palette { ink: Color; muted: Color; shade: Color }

/** Writes a report top to bottom; `finish()` returns the PDF bytes with the seal slot. */
export class ReportWriter {
  private page!: PDFPage;
  private y = 0;
  private pages = 0;

  private constructor(private readonly doc: PDFDocument, private readonly regular: PDFFont, private readonly bold: PDFFont, private readonly footer: string,
    private readonly colors: Palette) {
    this.newPage();
  }

  /**
   * A new document titled `title` (document Info), each page's footer reading `footer`. pdf-lib is
   * loaded here, at the first report, not when the app starts.
   */
  static async create(title: string, footer: string, created_at: Date): Promise<ReportWriter> {
    const { PDFDocument, PDFName, PDFString, StandardFonts, rgb } = await import('pdf-lib');
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.setTitle(title);
    doc.setProducer('Vantage');
    doc.setCreator('Vantage control plane');
    doc.setCreationDate(created_at);
    doc.setModificationDate(created_at);
    // pdf-lib has no public setter for a custom Info entry; getInfoDict() is marked private in its declarations.
    (doc as unknown as { getInfoDict(): { set(k: PDFName, v: PDFString): void } }).getInfoDict().set(PDFName.of(SEAL_KEY), PDFString.of(SEAL_PLACEHOLDER));
    const colors = { ink: rgb(0.1, 0.1, 0.12), muted: rgb(0.4, 0.4, 0.45), shade: rgb(0.93, 0.94, 0.96) };
    return new ReportWriter(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold), footer, colors);
  }

  private newPage(): void {
    this.page = this.doc.addPage(A4);
    this.pages++;
    this.y = A4[1] - MARGIN;
    this.page.drawText(`${this.footer}  ·  page ${this.pages}`.replace('·', '-'), { x: MARGIN, y: 28, size: 8, font: this.regular, color: this.colors.muted });
  }

  private room(height: number): void {
    if (this.y - height < MARGIN + 10) this.newPage();
  }

  /** Runs of `text`: Latin-1 characters in `latin`, others as Noto Sans SC outlines (`font` null; dropped when no file has them). */
  private runs(text: string, latin: PDFFont): Array<{ text: string; font: PDFFont | null }> {
    const out: Array<{ text: string; font: PDFFont | null }> = [];
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      const font = cp > 0xff ? null : latin;
      if (font === null && !cjkGlyph(cp)) continue;
      const last = out[out.length - 1];
      if (last && last.font === font) last.text += ch;
      else out.push({ text: ch, font });
    }
    return out;
  }

  /** Width of a run at `size` pt. */
  private widthOf(run: { text: string; font: PDFFont | null }, size: number): number {
    if (run.font) return run.font.widthOfTextAtSize(run.text, size);
    let w = 0;
    for (const ch of run.text) w += cjkGlyph(ch.codePointAt(0)!)!.advance_em * size;
    return w;
  }

  /** Draw `text` wrapped to the page width at `size` pt (Chinese wraps between any two characters). */
  async paragraph(text: string, opts: { size?: number; bold?: boolean; muted?: boolean; gap?: number } = {}): Promise<void> {
    const size = opts.size ?? 10;
    const width = A4[0] - 2 * MARGIN;
    const line_h = size * 1.45;
    const latin = opts.bold ? this.bold : this.regular;
    const color = opts.muted ? this.colors.muted : this.colors.ink;
    const tokens = text.split(/(\s+|(?<=[^\u0000-\u00ff])|(?=[^\u0000-\u00ff]))/u).filter((s) => s !== '' && s !== undefined);
    const measure = (s: string) => this.runs(s, latin).reduce((w, r) => w + this.widthOf(r, size), 0);
    const lines: string[] = [];
    let line = '';
    for (const tok of tokens) {
      const next = line + tok;
      if (line !== '' && measure(next) > width) {
        lines.push(line.trimEnd());
        line = tok.trimStart();
      } else line = next;
    }
    if (line.trim() !== '') lines.push(line.trimEnd());
    for (const l of lines) {
      this.room(line_h);
      let x = MARGIN;
      for (const r of this.runs(l, latin)) {
        if (r.font) this.page.drawText(r.text, { x, y: this.y - size, size, font: r.font, color });
        else {
          let gx = x;
          for (const ch of r.text) {
            const g = cjkGlyph(ch.codePointAt(0)!)!;
            this.page.drawSvgPath(g.svg, { x: gx, y: this.y - size, scale: size, color, borderWidth: 0 });
            gx += g.advance_em * size;
          }
        }
        x += this.widthOf(r, size);
      }
      this.y -= line_h;
    }
    this.y -= opts.gap ?? 4;
  }

  /** A section heading. */
  async heading(text: string, level: 1 | 2 = 2): Promise<void> {
    this.room(level === 1 ? 60 : 40);
    this.y -= level === 1 ? 4 : 8;
    await this.paragraph(text, { size: level === 1 ? 18 : 13, bold: true, gap: 6 });
  }

  /**
   * A table: `header` then `rows`, column widths as fractions of the page width (sum 1). Cells are
   * Latin text. A cell too wide for its column is drawn smaller, down to 6 pt (a node or monitor id
   * is evidence: it stays whole), and only past that cut with a `.`.
   */
  table(header: string[], rows: string[][], widths: number[]): void {
    const size = 8.5;
    const min_size = 6;
    const row_h = 14;
    const total = A4[0] - 2 * MARGIN;
    const draw = (cells: string[], font: PDFFont, shade: boolean) => {
      this.room(row_h);
      if (shade) this.page.drawRectangle({ x: MARGIN, y: this.y - row_h + 3, width: total, height: row_h, color: this.colors.shade });
      let x = MARGIN + 3;
      cells.forEach((cell, i) => {
        const w = widths[i]! * total - 6;
        let text = cell.replace(/[^\u0020-\u00ff]/g, '?');
        // Width is linear in the size; 0.999 keeps rounding from cutting a text scaled to fit exactly.
        const fit = Math.max(min_size, Math.min(size, (0.999 * size * w) / Math.max(font.widthOfTextAtSize(text, size), 1e-6)));
        while (text.length > 1 && font.widthOfTextAtSize(text, fit) > w) text = `${text.slice(0, -2)}…`.replace('…', '.');
        this.page.drawText(text, { x, y: this.y - row_h + 7, size: fit, font, color: this.colors.ink });
        x += widths[i]! * total;
      });
      this.y -= row_h;
    };
    draw(header, this.bold, true);
    for (const r of rows) draw(r, this.regular, false);
    this.y -= 8;
  }

  /** The document's bytes with the seal placeholder in its Info dictionary (objects uncompressed so the slot is plain text). */
  async finish(): Promise<Uint8Array> {
    return this.doc.save({ useObjectStreams: false, updateFieldAppearances: false });
  }
}
