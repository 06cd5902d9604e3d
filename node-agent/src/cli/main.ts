import { runCli } from './commands.js';

/*
 * Entry point of `node-agent` (bin/node-agent.mjs imports this file). Everything testable lives in
 * commands.ts; this file only binds it to the real process.
 */
const code = await runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  onSignal: (handler) => {
    let seen = 0;
    const on = (signal: NodeJS.Signals) => {
      if (++seen > 1) process.exit(130); // a second signal: stop now
      handler(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
    return () => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
    };
  },
});
process.exit(code);
