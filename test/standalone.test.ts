import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// The repository stands alone: its docs (docs/, README.md) and the OpenAPI document it serves are
// the reference. Nothing in it may send a reader to a document outside it or to an issue number.
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Spelled in pieces so this file does not match itself.
const OUTSIDE = [
  ['\\.\\./', 'shared'], ['DESIGN', '\\.md'], ['STYLE', '\\.md'], ['NOTES', '\\.md'], ['spec/', 'api\\.md'],
  ['\\bspec (part )?', '[0-9]'], ['[Ii]ssue #?', '[0-9]'], ['\\bhelper ', '[A-Z]\\b'],
].map(([a, b]) => `${a ?? ''}${b ?? ''}`);

t.test('no reference to documents outside the repository or to issue numbers', { skip: spawnSync('git', ['-C', REPO, 'rev-parse'], { stdio: 'ignore' }).status !== 0 && 'not a git checkout' }, async (t) => {
  // Tracked and new files alike (--untracked), as the working tree has them.
  const res = spawnSync('git', ['-C', REPO, 'grep', '--untracked', '-n', '-I', '-E', OUTSIDE.join('|'), '--', '.', ':!pnpm-lock.yaml'], { encoding: 'utf8' });
  t.equal(res.status, 1, 'git grep finds nothing (exit 1)');
  t.equal(res.stdout, '', `references to replace with a docs/ page, the OpenAPI document or an RFC:\n${res.stdout}`);
});
