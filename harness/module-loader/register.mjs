// Loaded with `node --import` before an agent's entry point: its TypeScript modules are then served from
// modules.json beside this file (compiled by the harness before the agent started), so the process
// compiles nothing at start. See ../agent-modules.ts.
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
register('./hooks.mjs', import.meta.url, {
  data: { manifest: new URL('./modules.json', import.meta.url).href },
});
