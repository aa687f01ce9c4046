import { describe, expect, it } from 'vitest';
import { hoistJestMocks, MOCKS_MODULE } from './spec-hoist.ts';

describe('hoistJestMocks', () => {
  it('moves top-level jest.mock calls into a module imported first, keeping line numbers', async () => {
    const spec = [
      "import { notify } from './notifier';",
      "jest.mock('./notifier', () => ({",
      '  notify: jest.fn(),',
      '}));',
      "test('x', () => { jest.mock('./inner', () => ({})); });",
    ].join('\n');
    const out = await hoistJestMocks('tests/a.spec.js', spec);
    expect(out?.mocksFile).toBe(`tests/${MOCKS_MODULE}`);
    expect(out?.mocks).toBe("jest.mock('./notifier', () => ({\n  notify: jest.fn(),\n}));\n");
    const lines = out?.spec.split('\n') ?? [];
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(`import './${MOCKS_MODULE}'; import { notify } from './notifier';`);
    expect(lines.slice(1, 4)).toEqual(['', '', '']);
    // A call inside a test is not hoisted (Jest hoists it within its own block only).
    expect(lines[4]).toContain("jest.mock('./inner'");
  });

  it('leaves a spec without module mocks alone', async () => {
    expect(await hoistJestMocks('a.spec.js', "test('x', () => jest.fn());")).toBeNull();
    expect(await hoistJestMocks('a.spec.js', "test('x', () => { jest.mock('./a', () => 1); });")).toBeNull();
  });
});
