#!/usr/bin/env node
// Launcher: runs the TypeScript entry point through tsx's loader (no build step in development).
import { register } from 'tsx/esm/api';
register();
await import('../src/main.ts');
