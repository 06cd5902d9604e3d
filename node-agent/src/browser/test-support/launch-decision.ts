import { chromiumLaunch } from '../sandbox.js';
import { CHROMIUM_PATH } from './harness.js';

// Run as its own process (another user, another user namespace) by sandbox.test.ts: prints how this
// process would launch Chromium (sandbox.ts chromiumLaunch) as one JSON line, then exits.
const launch = await chromiumLaunch(CHROMIUM_PATH);
process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), ...launch })}\n`);
