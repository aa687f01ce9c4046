import { describe, expect, it } from 'vitest';
import { definedTests, findTests, wrapTests } from './rust-tests.ts';

const FILE = `//! Inner docs stay first.
#![allow(clippy::all)]
use shelf::*;

#[test]
fn plain() {
    assert_eq!(shelf::size("{"), 1); // a brace in a string, '}' in a char
}

#[test]
#[should_panic(expected = "too big")]
fn panics_with_message() {
    shelf::size("x");
}

#[test]
#[should_panic]
fn panics() {}

#[test]
fn returns_result() -> Result<(), String> {
    Ok(())
}

/* #[test] fn commented_out() {} */
fn helper<'a>(x: &'a str) -> &'a str { x }

mod nested {
    use super::*;
    #[test]
    pub fn inside() {}

    #[cfg(feature = "extra")]
    mod extra {
        #[test]
        fn optional() {}
    }
}

#[cfg(test)]
mod always {
    #[test]
    fn counted() {}
}

macro_rules! make {
    ($name:ident) => {
        #[test]
        fn $name() {}
    };
}
make!(generated);
`;

describe('finding the tests of a Rust file', () => {
  it('names each #[test] by its module path, and tells which may not be compiled in', () => {
    const tests = findTests(FILE).tests.map((t) => ({
      name: [...t.path, t.name].join('::'),
      conditional: t.conditional,
      panics: t.panics,
      returnType: t.returnType,
    }));
    expect(tests).toEqual([
      { name: 'plain', conditional: false, panics: null, returnType: null },
      { name: 'panics_with_message', conditional: false, panics: '"too big"', returnType: null },
      { name: 'panics', conditional: false, panics: '', returnType: null },
      { name: 'returns_result', conditional: false, panics: null, returnType: 'Result<(), String>' },
      { name: 'nested::inside', conditional: false, panics: null, returnType: null },
      { name: 'nested::extra::optional', conditional: true, panics: null, returnType: null },
      { name: 'always::counted', conditional: false, panics: null, returnType: null },
      { name: '$name', conditional: true, panics: null, returnType: null },
    ]);
  });

  it('lists the tests a file surely defines under its crate name', () => {
    expect(definedTests('tests/my-shelf.rs', FILE)).toEqual([
      'my_shelf::plain',
      'my_shelf::panics_with_message',
      'my_shelf::panics',
      'my_shelf::returns_result',
      'my_shelf::nested::inside',
      'my_shelf::always::counted',
    ]);
  });

  it.each([
    ['a raw string', 'const S: &str = r#"#[test] fn x() {}"#;\n#[test]\nfn real() {}', ['t::real']],
    [
      'a byte string and char',
      'const B: &[u8] = b"{"; const C: char = \'{\';\n#[test]\nfn real() {}',
      ['t::real'],
    ],
    ['a nested comment', '/* /* #[test] */ fn no() {} */\n#[test]\nfn real() {}', ['t::real']],
    ['a lifetime before a test', "fn f<'a>(x: &'a u8) -> &'a u8 { x }\n#[test]\nfn real() {}", ['t::real']],
    ['cfg_attr and other attributes', '#[test]\n#[allow(unused)]\npub(crate) fn real() {}', ['t::real']],
  ])('is not fooled by %s', (_what, source, names) => {
    expect(definedTests('tests/t.rs', source)).toEqual(names);
  });
});

describe('wrapping the tests', () => {
  const wrapped = wrapTests(FILE, '// HARNESS', '2021');

  it('keeps inner attributes first and adds the prelude to each module', () => {
    expect(wrapped.indexOf('#![allow(clippy::all)]')).toBeLessThan(wrapped.indexOf('use ::std::prelude'));
    expect(wrapped.match(/use ::std::prelude::rust_2021::\*;/g)).toHaveLength(4);
    expect(wrapped.trimEnd().endsWith('// HARNESS')).toBe(true);
  });

  it('runs each body through the harness, ending in the mark that it reached its end', () => {
    expect(wrapped).toContain(
      'fn returns_result() -> Result<(), String> { crate::__graded_harness::run(::std::module_path!(), ::std::stringify!(returns_result), ::std::option::Option::None, |__graded_done: &::std::cell::Cell<bool>| -> Result<(), String> { let __graded_value = {',
    );
    expect(wrapped).toContain('::std::option::Option::Some("too big")');
    expect(wrapped).toContain('::std::stringify!($name)');
    expect(wrapped.match(/__graded_done\.set\(true\)/g)).toHaveLength(8);
  });
});
