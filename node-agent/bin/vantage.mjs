#!/usr/bin/env node
// Launcher of the `vantage` CLI: runs the TypeScript through tsx's loader (no build step in development).
import { register } from 'tsx/esm/api';
register();
await import('../src/cli/vantage/main.ts');
