/**
 * Builds the admin dashboard into dist/dashboard, which the gateway serves at /dashboard.
 * Content-hashed asset names let the server cache them for a year; no inline script or style
 * is emitted, so the page runs under the server's strict Content-Security-Policy.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    // Small assets are inlined as data: URLs by default; keep every asset a file of its own.
    assetsInlineLimit: 0,
    // No module-preload polyfill: it is an inline script, which the CSP forbids.
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
