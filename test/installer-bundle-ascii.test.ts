import t from 'tap';
import { asciiComments } from '../installer/build-bundle.js';
import { loadEsbuild } from '../installer/esbuild.js';

// The agent bundle is written ASCII only, so V8 holds its source one byte per character
// (installer/build-bundle.ts asciiComments).

t.test('non-ASCII characters become \\u escapes; ASCII text is left as it is', async (t) => {
  t.equal(asciiComments('// a → b\nconst x = 1;'), '// a \\u2192 b\nconst x = 1;');
  t.equal(asciiComments('/* 😀 */'), '/* \\ud83d\\ude00 */', 'a character outside the BMP: its two UTF-16 units');
  const ascii = 'export const s = "\\u2192"; // plain\n';
  t.equal(asciiComments(ascii), ascii);
});

t.test('esbuild output (comments kept, strings escaped by esbuild) becomes ASCII and means the same', async (t) => {
  const esbuild = await loadEsbuild();
  const source = '/** Seconds, 0 to 2^31 − 1. */\nexport class A {\n  /** id → start */\n  m = new Map();\n}\nexport const s = "x → y — z";\n';
  const built = await esbuild.build({ stdin: { contents: source, loader: 'ts' }, write: false, format: 'esm', outfile: 'out.mjs', logLevel: 'silent' });
  const text = built.outputFiles![0]!.text;
  t.ok(/[^\x00-\x7f]/.test(text), 'esbuild keeps a non-ASCII comment (what asciiComments is for)');
  const ascii = asciiComments(text);
  t.notOk(/[^\x00-\x7f]/.test(ascii), 'no non-ASCII character is left');
  const mod = (await import(`data:text/javascript,${encodeURIComponent(ascii)}`)) as { s: string; A: new () => { m: Map<string, number> } };
  t.equal(mod.s, 'x → y — z', 'string values are unchanged');
  t.ok(new mod.A().m instanceof Map);
});
