// Loaded with `node --import` before an agent's entry point: its TypeScript modules are then served from
// modules.json beside this file (compiled by the harness before the agent started), so the process
// compiles nothing at start. See ../agent-modules.ts.
import * as nodeModule from 'node:module';

process.setSourceMapsEnabled(true);
const data = { manifest: new URL('./modules.json', import.meta.url).href };
if (typeof nodeModule.registerHooks === 'function') {
  // Node 22.15 and later: hooks in this thread, so no loader thread starts and no module costs a round trip.
  const hooks = await import('./hooks.mjs');
  hooks.initialize(data);
  nodeModule.registerHooks({ resolve: hooks.resolveSync, load: hooks.loadSync });
} else {
  nodeModule.register('./hooks.mjs', import.meta.url, { data });
}
