import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../harness/run/index.ts';
import { loopHelp } from './loop-args.ts';
import { settingsMarkdown } from './setting-docs.ts';

describe('the docs and the help, made from the table of settings', () => {
  it('docs/options.md is the table as it is now (npm run docs:options writes it)', () => {
    const file = path.resolve(import.meta.dirname, '..', '..', 'docs', 'options.md');
    expect(readFileSync(file, 'utf8'), 'docs/options.md is out of date: run npm run docs:options').toBe(
      settingsMarkdown(),
    );
  });

  it('generate-loop --help names every setting with its help', async () => {
    const help = (await loopHelp()).replace(/\s+/g, ' ');
    for (const setting of SETTINGS) {
      expect(help).toContain(`--${setting.option}`);
      expect(help).toContain(setting.describe.split(' ').slice(0, 4).join(' '));
    }
  });
});
