// Loaded with `node --import <this file>` by test/ops/production-build.test.ts: appends to the
// file named by VANTAGE_MODULE_TRACE the URL of every module the process resolves that is
// TypeScript (.ts, .mts, .cts, .tsx) or part of tsx, one per line. A process started from the
// build must leave that file empty.
import { register } from 'node:module';

const HOOK = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const path = result.url.startsWith('file:') ? new URL(result.url).pathname : '';
  if (/\\.[cm]?tsx?$/.test(path) || /[\\\\/]tsx[\\\\/]/.test(path)) appendFileSync(file, result.url + '\\n');
  return result;
}
`;

const file = process.env.VANTAGE_MODULE_TRACE;
if (file) register(`data:text/javascript,${encodeURIComponent(HOOK)}`, import.meta.url, { data: { file } });
