/*
 * The password strength worker's program (run by password-strength.ts in the agent's worker pool,
 * node-agent/src/checks/assertions/worker-pool.ts). Plain CommonJS evaluated as a string, so it
 * loads the same way under tsx and from the build: zxcvbn-ts and its two
 * dictionaries are required by the paths the main thread resolved (the control plane's own
 * dependencies). The estimator is built on the first check (about 230 ms) and kept.
 *
 * workerData: `{ core, common, en }` (module paths), `max_length`, `l33t_max_substitutions`.
 * Messages in: `{ id, password, inputs }` (password already NFC-normalized).
 * Messages out: `{ ready: true }` once loaded; per job `{ id, done: { score, warning, suggestions } }`,
 * or `{ id, done: { error } }` when the estimator threw.
 */
export const STRENGTH_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { ZxcvbnFactory } = require(workerData.core);
const common = require(workerData.common);
const en = require(workerData.en);

let estimator = null;
parentPort.on('message', (m) => {
  try {
    estimator ??= new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
      maxLength: workerData.max_length,
      l33tMaxSubstitutions: workerData.l33t_max_substitutions,
    });
    const r = estimator.check(m.password, m.inputs);
    parentPort.postMessage({ id: m.id, done: { score: r.score, warning: r.feedback.warning ?? '', suggestions: r.feedback.suggestions } });
  } catch (err) {
    parentPort.postMessage({ id: m.id, done: { error: String((err && err.message) || err).slice(0, 300) } });
  }
});
parentPort.postMessage({ ready: true });
`;
