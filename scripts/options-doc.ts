// Writes docs/options.md from the table of run settings (harness/run/settings*.ts).
//   npm run docs:options
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { settingsMarkdown } from '../cli/loop/setting-docs.ts';

const file = path.resolve(import.meta.dirname, '..', 'docs', 'options.md');
writeFileSync(file, settingsMarkdown());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
