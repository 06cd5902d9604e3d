/*
 * The pattern worker's program (run by worker-pool.ts). Plain CommonJS evaluated as a string, so
 * it loads without the TypeScript loader; re2js and jsonpath-rfc9535 are required by the paths
 * the main thread resolved (the same copies, also in the agent bundle: installer/native-deps.ts
 * WORKER_PACKAGES). Its limits arrive in `workerData` (see WorkerLimits in sandbox.ts).
 *
 * Messages in: `{ id, kind: 'regex', pattern, input }` and
 * `{ id, kind: 'json', text, paths, from, first_only }`.
 * Messages out: `{ ready: true }` once loaded; for a regex job `{ id, done: RegexOutcome }`; for a
 * JSON job `{ id, step: { parsed: true } }` after parsing, then `{ id, step: { index, result } }`
 * per path from `from` on, where `result` is `{ ok: true, json, count }` (the selected values as
 * the JSON text of an array) or `{ ok: false, error }`, then `{ id, done: { ok: true } }`, or
 * `{ id, done: { ok: false, error } }` when the text is not JSON.
 */
export const WORKER_SOURCE = `
const { parentPort, workerData: limits } = require('node:worker_threads');
const { RE2JS } = require(limits.re2js);
const { exec } = require(limits.jsonpath);

const compiled = new Map();
function compile(pattern) {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    if (compiled.size >= 64) compiled.delete(compiled.keys().next().value);
    compiled.set(pattern, re);
  }
  return re;
}

function regex(job) {
  let re;
  try { re = compile(job.pattern); } catch (err) { return { ok: false, error: 'not an RE2 regular expression: ' + String(err.message).slice(0, 200) }; }
  const size = re.programSize();
  if (size > limits.regex_program_max) return { ok: false, error: 'pattern too complex (' + size + ' instructions, at most ' + limits.regex_program_max + ')' };
  const matched = re.test(job.input);
  // Locating the match needs the slower NFA; only when that too stays cheap.
  const found = matched && size * job.input.length <= limits.regex_locate_budget ? re.exec(job.input) : null;
  return { ok: true, matched, match: found ? String(found[0]).slice(0, limits.match_text_max_chars) : null };
}

const STOP = Symbol('stop');
const fmt = (n) => n.toLocaleString('en-US');
function select(doc, path, first_only) {
  const parts = [];
  let chars = 2;
  let bound = null;
  try {
    exec(doc, path, (value) => {
      if (parts.length >= (first_only ? 1 : limits.values_max)) {
        if (!first_only) bound = 'selects more than ' + fmt(limits.values_max) + ' values';
        throw STOP;
      }
      const text = JSON.stringify(value);
      chars += text.length + 1;
      if (chars > limits.selection_max_chars) {
        bound = 'selects more than ' + fmt(limits.selection_max_chars) + ' characters of JSON';
        throw STOP;
      }
      parts.push(text);
    });
  } catch (err) {
    if (err !== STOP) {
      if (err instanceof RangeError && /call stack/.test(err.message)) return { ok: false, error: 'a selected value is nested too deeply to use' };
      return { ok: false, error: 'not a usable JSONPath: ' + String(err && err.message || err).slice(0, 200) };
    }
  }
  if (bound) return { ok: false, error: bound + ' (narrow the JSONPath)' };
  return { ok: true, json: '[' + parts.join(',') + ']', count: parts.length };
}

function json(job) {
  let doc;
  try { doc = JSON.parse(job.text); } catch (err) {
    parentPort.postMessage({ id: job.id, done: { ok: false, error: 'body is not JSON (' + String(err.message).slice(0, 200) + ')' } });
    return;
  }
  parentPort.postMessage({ id: job.id, step: { parsed: true } });
  for (let index = job.from; index < job.paths.length; index++) {
    parentPort.postMessage({ id: job.id, step: { index, result: select(doc, job.paths[index], job.first_only) } });
  }
  parentPort.postMessage({ id: job.id, done: { ok: true } });
}

parentPort.on('message', (job) => {
  try {
    if (job.kind === 'regex') parentPort.postMessage({ id: job.id, done: regex(job) });
    else json(job);
  } catch (err) {
    parentPort.postMessage({ id: job.id, done: { ok: false, error: String(err && err.message || err).slice(0, 300) } });
  }
});
parentPort.postMessage({ ready: true });
`;
