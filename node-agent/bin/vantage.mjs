#!/usr/bin/env node
// Launcher of the `vantage` CLI: the build under NODE_ENV=production, else the sources through tsx (entry.mjs).
import { runEntry } from './entry.mjs';
await runEntry('vantage.mjs', 'cli/vantage/main.ts');
