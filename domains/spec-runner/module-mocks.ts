/**
 * `jest.mock(path, factory)` for specs that run as CommonJS. Jest hoists these calls above the spec's
 * imports (babel-plugin-jest-hoist); the grader does the same by moving them into a module the spec
 * imports first (`hoistJestMocks`), and the spec then runs as CommonJS, where every `require`, the
 * solution's included, goes through `Module._load` and gets the factory's module. The factory runs once,
 * on the first `require`. A mock without a factory (Jest's automock) is refused with a message.
 */
import Module, { createRequire } from 'node:module';

type Factory = () => unknown;

interface Loader {
  _load(request: string, parent: unknown, isMain: boolean): unknown;
  _resolveFilename(request: string, parent: unknown, isMain: boolean): string;
}

/** Installs the `require` hook; returns `jest.mock`, resolving paths from the spec's folder. */
export function moduleMocks(specPath: string): (request: string, factory?: Factory) => void {
  const loader = Module as unknown as Loader;
  const resolveFromSpec = createRequire(specPath).resolve;
  const factories = new Map<string, Factory>();
  const made = new Map<string, unknown>();
  const load = loader._load;
  loader._load = function (this: unknown, request, parent, isMain) {
    if (factories.size > 0) {
      let file: string | null = null;
      try {
        file = loader._resolveFilename(request, parent, isMain);
      } catch {}
      const factory = file === null ? undefined : factories.get(file);
      if (file !== null && factory) {
        if (!made.has(file)) made.set(file, factory());
        return made.get(file);
      }
    }
    return load.call(this, request, parent, isMain);
  };
  return (request, factory) => {
    if (typeof factory !== 'function')
      throw new Error(`jest.mock('${request}') without a factory (automock) is not supported; pass one`);
    const file = resolveFromSpec(request);
    factories.set(file, factory);
    made.delete(file);
  };
}
