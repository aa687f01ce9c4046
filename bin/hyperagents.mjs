#!/usr/bin/env node
// Runs the TypeScript entry with tsx: no build step.
import { register } from 'tsx/esm/api';

register();
(await import('../cli/closed-output.ts')).dropOutputToClosedPipes();
const { main } = await import('../cli/hyperagents.ts');
process.exitCode = await main(process.argv.slice(2));
