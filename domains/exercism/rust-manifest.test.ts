import { describe, expect, it } from 'vitest';
import { gradingManifest, meetsRequirement, missingCrates } from './rust-manifest.ts';
import { parseToml } from './toml.ts';

const EXERCISE = `[package]
edition = "2021"
name = "xorcism"
version = "0.1.0"

[features]
io = []

[lints.clippy]
new_without_default = "allow"
`;

const graded = (answer: string) => {
  const result = gradingManifest(answer, EXERCISE);
  return 'text' in result ? parseToml(result.text) : result;
};

describe('the manifest an answer is graded with', () => {
  it('is the exercise’s own, with the answer’s dependencies in any TOML form', () => {
    const answer = `${EXERCISE}
[dependencies]
rand = "0.8"   # a comment
regex = { version = "1", default-features = false, features = ["std"] }

[dependencies.time]
version = "0.3"
`;
    expect(graded(answer)).toEqual({
      ...parseToml(EXERCISE),
      dependencies: {
        rand: '0.8',
        regex: { version: '1', 'default-features': false, features: ['std'] },
        time: { version: '0.3' },
      },
    });
  });

  it('keeps the exercise’s package metadata and tables the answer left out or renamed', () => {
    expect(graded('[package]\nname = "renamed"\nversion = "9.9.9"\n')).toEqual(parseToml(EXERCISE));
    expect(graded('')).toEqual(parseToml(EXERCISE));
  });

  it.each([
    ['a build script', '[package]\nname = "xorcism"\nbuild = "build.rs"\n', /package\.build/],
    ['autotests = false', '[package]\nname = "xorcism"\nautotests = false\n', /package\.autotests/],
    ['a [[test]] path', `${EXERCISE}\n[[test]]\nname = "x"\npath = "src/fake.rs"\n`, /\[test\]/],
    ['a profile that aborts on panic', `${EXERCISE}\n[profile.dev]\npanic = "abort"\n`, /\[profile\]/],
    ['a patch', `${EXERCISE}\n[patch.crates-io]\nrand = { path = "x" }\n`, /\[patch\]/],
    ['a path dependency', `${EXERCISE}\n[dependencies]\nfake = { path = "fake" }\n`, /sets path/],
    [
      'a git dependency',
      `${EXERCISE}\n[dependencies]\nrand = { git = "https://x", version = "1" }\n`,
      /sets git/,
    ],
    [
      'a renamed package',
      `${EXERCISE}\n[dependencies]\nr = { package = "ctor", version = "0.1" }\n`,
      /sets package/,
    ],
    ['a constructor crate', `${EXERCISE}\n[dependencies]\nctor = "0.1"\n`, /before the test harness/],
    ['changed features', '[features]\ndefault = ["io"]\nio = []\n', /\[features\]/],
    ['a target table', `${EXERCISE}\n[target.'cfg(unix)'.dependencies]\nlibc = "0.2"\n`, /\[target\]/],
    ['dev-dependencies', `${EXERCISE}\n[dev-dependencies]\nrand = "0.8"\n`, /\[dev-dependencies\]/],
    ['a lib section', `${EXERCISE}\n[lib]\npath = "src/other.rs"\n`, /\[lib\]/],
    ['text that is not TOML', '[package\nname = 1', /not a manifest/],
    ['a key set twice', '[dependencies]\nrand = "0.8"\nrand = "0.7"\n', /defined twice/],
  ])('refuses %s', (_what, answer, why) => {
    expect(gradingManifest(answer, EXERCISE)).toEqual({ refused: expect.stringMatching(why) });
  });
});

describe('version requirements against the local registry', () => {
  it.each([
    ['0.8.5', '0.8', true],
    ['0.8.5', '0.7', false],
    ['1.7.1', '1.0', true],
    ['1.7.1', '0.2', false],
    ['0.4.3', '0.4.4', false],
    ['0.4.5', '0.4.4', true],
    ['0.0.3', '0.0.3', true],
    ['0.0.4', '0.0.3', false],
    ['0.3.9', '~0.3.1', true],
    ['0.4.0', '~0.3', false],
    ['1.2.3', '=1.2.3', true],
    ['1.2.4', '=1.2.3', false],
    ['1.9.0', '>= 1.2, < 2', true],
    ['2.0.0', '>= 1.2, < 2', false],
    ['1.9.0', '1.*', true],
    ['3.0.0', '*', true],
    ['1.0.0-alpha.5', '1', false],
  ])('%s meets "%s": %s', (version, req, meets) => {
    expect(meetsRequirement(version, req)).toBe(meets);
  });

  it('names each crate the registry cannot meet, with what it has', () => {
    const registry = new Map([
      ['itertools', ['0.10.5']],
      ['rand', ['0.8.5']],
    ]);
    const manifest = '[dependencies]\nitertools = "0.5"\npermutohedron = "0.2"\nrand = { version = "0.8" }\n';
    expect(missingCrates(manifest, registry)).toEqual([
      'itertools "0.5" (it has 0.10.5)',
      'permutohedron "0.2" (it has none)',
    ]);
  });
});
