export { main } from './cli/loop/generate-loop.ts';
