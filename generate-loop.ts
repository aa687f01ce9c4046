export { main } from './cli/generate-loop.ts';
