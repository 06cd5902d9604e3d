import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The pages that promise to list every API guide. */
const INDEXES = ['README.md', 'docs/README.md', 'docs/api/conventions.md'];

/** Repository-relative targets of the markdown links in `file` (anchors dropped, outside links left out). */
function linkedFiles(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out = new Set<string>();
  for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/.test(target)) continue;
    out.add(relative(ROOT, normalize(join(ROOT, dirname(file), target))));
  }
  return out;
}

t.test('every API guide (docs/api/*.md) is linked from the README, docs/README.md and conventions.md', async (t) => {
  const guides = readdirSync(join(ROOT, 'docs/api')).filter((f) => f.endsWith('.md')).map((f) => `docs/api/${f}`);
  t.ok(guides.length >= 9, `${guides.length} guides`);
  for (const index of INDEXES) {
    const links = linkedFiles(index);
    for (const guide of guides) {
      if (guide === index) continue;
      t.ok(links.has(guide), `${index} links ${guide}`);
    }
  }
});

t.test('the operator guides (docs/operators/*.md) are listed in docs/README.md', async (t) => {
  const links = linkedFiles('docs/README.md');
  for (const f of readdirSync(join(ROOT, 'docs/operators')).filter((x) => x.endsWith('.md'))) t.ok(links.has(`docs/operators/${f}`), f);
});
