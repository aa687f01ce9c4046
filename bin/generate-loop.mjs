#!/usr/bin/env node
// Runs the command built from its TypeScript sources, rebuilt first when a source has changed (load.mjs).
import { load } from './load.mjs';

(await load('closed-output')).dropOutputToClosedPipes();
const { main } = await load('generate-loop');
process.exitCode = await main(process.argv.slice(2));
