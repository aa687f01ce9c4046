import { existsSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { DOMAIN_NAME, type Domain, type DomainSpec, defineDomain } from './define-domain.ts';

/** What a domain module's default-exported function is given: the project's own `defineDomain` and zod. */
export interface DomainModuleApi {
  defineDomain: typeof defineDomain;
  z: typeof z;
}

const MODULE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const REQUIRED = ['name', 'description', 'splits', 'load', 'answerSchema', 'score'] as const;
const SHAPE =
  'defineDomain({...}), an object with name, description, splits, load, answerSchema and score, ' +
  'or a function ({ defineDomain, z }) => such an object';

type Opened = { ok: true; domain: Domain } | { ok: false; message: string };

/** What is wrong with a domain spec's required fields, or null when they are all there. */
function missing(value: Record<string, unknown>): string | null {
  const wrong = REQUIRED.filter((key) => {
    const v = value[key];
    if (key === 'load' || key === 'score') return typeof v !== 'function';
    if (key === 'splits') return !Array.isArray(v);
    if (key === 'answerSchema') return typeof (v as { safeParse?: unknown })?.safeParse !== 'function';
    return typeof v !== 'string';
  });
  return wrong.length === 0 ? null : wrong.join(', ');
}

/**
 * Opens `module:FILE`: a TypeScript or JavaScript file anywhere, whose default export is a domain with the
 * contract of define-domain.ts. It is loaded through tsx, so TypeScript needs no build; `name` is the
 * domain's name in the run (the reference's, which renames the module's own). A file that is missing, not a
 * module, fails to load or exports something else is a message saying what to do.
 */
export async function openModuleDomain(file: string, name: string): Promise<Opened> {
  const where = `module:${file}`;
  if (!existsSync(file)) return { ok: false, message: `${where}: no such file.` };
  if (!statSync(file).isFile())
    return { ok: false, message: `${where} is a folder: give a .ts or .js file.` };
  if (!MODULE_FILE.test(file))
    return { ok: false, message: `${where}: a domain module is a .ts, .mts, .js or .mjs file.` };
  let exported: unknown;
  try {
    const { tsImport } = await import('tsx/esm/api');
    const mod = (await tsImport(pathToFileURL(file).href, import.meta.url)) as { default?: unknown };
    exported = mod.default;
    // A file outside an ES module package loads as CommonJS: its `export default` is then one level down.
    if (typeof exported === 'object' && exported !== null && 'default' in exported)
      exported = (exported as { default: unknown }).default;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `${where} could not be loaded: ${text.split('\n')[0]}` };
  }
  if (exported === undefined)
    return { ok: false, message: `${where} has no default export: export default ${SHAPE}.` };
  try {
    if (typeof exported === 'function')
      exported = await exported({ defineDomain, z } satisfies DomainModuleApi);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `${where}: its default-exported function failed: ${text.split('\n')[0]}` };
  }
  if (typeof exported !== 'object' || exported === null)
    return { ok: false, message: `${where} must default-export ${SHAPE}; it exports a ${typeof exported}.` };
  const lacking = missing(exported as Record<string, unknown>);
  if (lacking !== null)
    return {
      ok: false,
      message: `${where} exports an object without a valid ${lacking}: export default ${SHAPE}.`,
    };
  const spec = exported as DomainSpec;
  if (!DOMAIN_NAME.test(spec.name))
    return {
      ok: false,
      message: `${where}: the domain name "${spec.name}" must be lower-case letters, digits and dashes.`,
    };
  try {
    return { ok: true, domain: defineDomain({ ...spec, name }) };
  } catch (error) {
    return { ok: false, message: `${where}: ${(error as Error).message}` };
  }
}
