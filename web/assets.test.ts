import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ASSETS, SCRIPTS, STYLES } from './assets.ts';

const CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'client');

describe('the assets', () => {
  it('serve and load every file of the pages, each from its own file', () => {
    const files = readdirSync(CLIENT).sort();
    const fromClient = Object.entries(ASSETS)
      .filter(([, file]) => path.dirname(file) === CLIENT)
      .map(([name, file]) => {
        expect(path.basename(file)).toBe(name);
        return name;
      });
    expect(fromClient.sort()).toEqual(files);
    const loaded: readonly string[] = [...SCRIPTS, ...STYLES];
    expect(files.filter((name) => !loaded.includes(name))).toEqual([]);
    expect(Object.keys(ASSETS).filter((name) => !loaded.includes(name))).toEqual([]);
  });

  it('load each part of the shared HA object before a script that uses it', () => {
    const scripts = SCRIPTS.filter((name) => path.dirname(ASSETS[name]) === CLIENT);
    const text = new Map(scripts.map((name) => [name, readFileSync(ASSETS[name], 'utf8')]));
    const late: string[] = [];
    scripts.forEach((name, at) => {
      for (const [, part] of text.get(name)!.matchAll(/^ {2}HA\.(\w+) = /gm))
        for (const user of scripts.slice(0, at))
          if (new RegExp(`HA\\.${part}\\b`).test(text.get(user)!))
            late.push(`${user} uses HA.${part} of ${name}`);
    });
    expect(scripts.length).toBeGreaterThan(10);
    expect(late).toEqual([]);
  });
});
