import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** One documented field of a `z.object({ … })` in a source file. */
export interface FieldDoc {
  /** The property name (`heartbeat_interval_ms`). */
  name: string;
  /** Its docstring, lines joined with single spaces; '' when it has none. */
  doc: string;
  /** The file it is declared in. */
  file: string;
}

/**
 * The docstrings of every property of every `z.object({ … })` call in `file`, read with the
 * TypeScript compiler API (the `/** … *\/` comment right above each property), in source order.
 * The configuration schemas keep their descriptions as docstrings, so the generated settings table
 * has one source: the code.
 */
export function objectFieldDocs(file: string): FieldDoc[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: FieldDoc[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'object') {
      const arg = node.arguments[0];
      if (arg && ts.isObjectLiteralExpression(arg)) {
        for (const prop of arg.properties) {
          if (!ts.isPropertyAssignment(prop) || !(ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name))) continue;
          // The raw comment, not the parsed one: `@ip-location-db/…` in a sentence is no JSDoc tag.
          const docs = ts.getJSDocCommentsAndTags(prop).filter(ts.isJSDoc);
          const text = docs.map((d) => d.getText().replace(/^\/\*\*|\*\/$/g, '').replace(/^\s*\* ?/gm, '')).join(' ');
          out.push({ name: prop.name.text, doc: text.replace(/\s+/g, ' ').trim(), file });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
