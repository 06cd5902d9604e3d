import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';

const shim = (name: string) => fileURLToPath(new URL(`./src/shims/${name}.ts`, import.meta.url));

// The console build (docs/console.md): dist/index.html plus content-hashed files under dist/assets/.
// No inline script anywhere (the control plane serves a CSP without 'unsafe-inline'), so Vite's
// module-preload polyfill, which it would inline, is off; every page is its own lazy chunk.
export default defineConfig({
  plugins: [preact()],
  // shared-protocol's schemas (the monitor form validates with them) import a few Node built-ins.
  resolve: { alias: { 'node:net': shim('node-net'), 'node:crypto': shim('node-crypto'), 'node:url': shim('node-url') } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    reportCompressedSize: false,
  },
});
