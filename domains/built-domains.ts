/**
 * The shipped domains' modules, by name, when the commands run built into JavaScript: the build fills this
 * table in (scripts/build-commands.mjs), so each domain is a chunk of the build. Run from the TypeScript
 * sources it is empty, and each domain's index.ts is imported by its path.
 */
export const BUILT_DOMAINS: Readonly<Record<string, () => Promise<unknown>>> = {};
