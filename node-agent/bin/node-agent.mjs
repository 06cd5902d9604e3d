#!/usr/bin/env node
// Launcher of the agent CLI: the build under NODE_ENV=production, else the sources through tsx (entry.mjs).
import { runEntry } from './entry.mjs';
await runEntry('node-agent.mjs', 'cli/main.ts');
