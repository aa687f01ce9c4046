import type { CodeTask } from './task-spec.ts';

export const STRING_TASKS: readonly CodeTask[] = [
  {
    name: 'reverse-words',
    lang: 'js',
    fn: 'reverseWords',
    instructions:
      'Return the words of a sentence in reverse order, separated by single spaces. `reverseWords("a b c")` is `"c b a"`; extra spaces are dropped.',
    signature: '(sentence)',
    cases: [
      ['reverseWords("a b c")', '"c b a"'],
      ['reverseWords("  hello   world ")', '"world hello"'],
      ['reverseWords("")', '""'],
    ],
    solution: "return sentence.split(/\\s+/).filter(Boolean).reverse().join(' ');",
  },
  {
    name: 'count-vowels',
    lang: 'ts',
    fn: 'countVowels',
    instructions: 'Count the vowels (a, e, i, o, u, either case) in a string. `countVowels("Hello")` is 2.',
    signature: '(text: string): number',
    cases: [
      ['countVowels("Hello")', '2'],
      ['countVowels("AEIOU xyz")', '5'],
      ['countVowels("rhythm")', '0'],
    ],
    solution: 'return (text.match(/[aeiou]/gi) ?? []).length;',
  },
  {
    name: 'is-palindrome',
    lang: 'js',
    fn: 'isPalindrome',
    instructions:
      'Tell whether a phrase reads the same backwards, ignoring case and anything that is not a letter or digit. `isPalindrome("A man, a plan, a canal: Panama")` is true.',
    signature: '(phrase)',
    cases: [
      ['isPalindrome("A man, a plan, a canal: Panama")', 'true'],
      ['isPalindrome("abc")', 'false'],
      ['isPalindrome("")', 'true'],
      ['isPalindrome("No 1 in")', 'false'],
    ],
    solution:
      "const s = phrase.toLowerCase().replace(/[^a-z0-9]/g, '');\n  return s === [...s].reverse().join('');",
  },
  {
    name: 'title-case',
    lang: 'ts',
    fn: 'titleCase',
    instructions:
      'Upper-case the first letter of every word and lower-case the rest; words are separated by single spaces. `titleCase("hELLO wORLD")` is `"Hello World"`.',
    signature: '(text: string): string',
    cases: [
      ['titleCase("hELLO wORLD")', '"Hello World"'],
      ['titleCase("a")', '"A"'],
      ['titleCase("")', '""'],
    ],
    solution:
      "return text.split(' ').map((w) => (w === '' ? w : w[0]!.toUpperCase() + w.slice(1).toLowerCase())).join(' ');",
  },
  {
    name: 'run-length',
    lang: 'js',
    fn: 'runLength',
    instructions:
      'Run-length encode a string: each run of the same character becomes the count followed by the character, and a run of one is just the character. `runLength("aaabcc")` is `"3ab2c"`.',
    signature: '(text)',
    cases: [
      ['runLength("aaabcc")', '"3ab2c"'],
      ['runLength("")', '""'],
      ['runLength("abc")', '"abc"'],
      ['runLength("zzzzzzzzzzzz")', '"12z"'],
    ],
    solution: 'return text.replace(/(.)\\1*/g, (run, c) => (run.length > 1 ? run.length + c : c));',
  },
  {
    name: 'caesar-shift',
    lang: 'ts',
    fn: 'caesarShift',
    instructions:
      'Shift every letter forward in the alphabet by `n` places (wrapping from z to a), keeping case; other characters stay. `caesarShift("Abz!", 1)` is `"Bca!"`. `n` may be negative.',
    signature: '(text: string, n: number): string',
    cases: [
      ['caesarShift("Abz!", 1)', '"Bca!"'],
      ['caesarShift("abc", -1)', '"zab"'],
      ['caesarShift("Hello", 26)', '"Hello"'],
    ],
    solution:
      "return text.replace(/[a-z]/gi, (c) => {\n    const base = c <= 'Z' ? 65 : 97;\n    return String.fromCharCode(((((c.charCodeAt(0) - base + n) % 26) + 26) % 26) + base);\n  });",
  },
  {
    name: 'acronym',
    lang: 'js',
    fn: 'acronym',
    instructions:
      'Make an acronym from a phrase: the first letter of each word, upper-cased; words are separated by spaces or hyphens. `acronym("Portable network-graphics")` is `"PNG"`.',
    signature: '(phrase)',
    cases: [
      ['acronym("Portable network-graphics")', '"PNG"'],
      ['acronym("as soon as possible")', '"ASAP"'],
      ['acronym("one")', '"O"'],
    ],
    solution: "return phrase.split(/[\\s-]+/).filter(Boolean).map((w) => w[0].toUpperCase()).join('');",
  },
  {
    name: 'char-frequency',
    lang: 'ts',
    fn: 'charFrequency',
    instructions:
      'Count each character of a string, returning an object from character to count. Spaces count too. `charFrequency("aba")` is `{ a: 2, b: 1 }`.',
    signature: '(text: string): Record<string, number>',
    cases: [
      ['charFrequency("aba")', '{ a: 2, b: 1 }'],
      ['charFrequency("")', '{}'],
      ['charFrequency("a a")', '{ a: 2, " ": 1 }'],
    ],
    solution:
      'const out: Record<string, number> = {};\n  for (const c of text) out[c] = (out[c] ?? 0) + 1;\n  return out;',
  },
  {
    name: 'is-anagram',
    lang: 'js',
    fn: 'isAnagram',
    instructions:
      'Tell whether two words are anagrams of each other, ignoring case. A word is not its own anagram. `isAnagram("Listen", "silent")` is true; `isAnagram("abc", "abc")` is false.',
    signature: '(a, b)',
    cases: [
      ['isAnagram("Listen", "silent")', 'true'],
      ['isAnagram("abc", "abc")', 'false'],
      ['isAnagram("abc", "abd")', 'false'],
      ['isAnagram("Abc", "cab")', 'true'],
    ],
    solution:
      "const norm = (s) => [...s.toLowerCase()].sort().join('');\n  return a.toLowerCase() !== b.toLowerCase() && norm(a) === norm(b);",
  },
  {
    name: 'snake-to-camel',
    lang: 'ts',
    fn: 'snakeToCamel',
    instructions:
      'Turn a snake_case name into camelCase. `snakeToCamel("max_retry_count")` is `"maxRetryCount"`; a name without underscores is unchanged.',
    signature: '(name: string): string',
    cases: [
      ['snakeToCamel("max_retry_count")', '"maxRetryCount"'],
      ['snakeToCamel("id")', '"id"'],
      ['snakeToCamel("a_b")', '"aB"'],
    ],
    solution: 'return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());',
  },
  {
    name: 'longest-word',
    lang: 'js',
    fn: 'longestWord',
    instructions:
      'Return the longest word of a sentence (words are runs of letters); on a tie, the first one. `longestWord("I love dogs!")` is `"love"`. An empty sentence gives `""`.',
    signature: '(sentence)',
    cases: [
      ['longestWord("I love dogs!")', '"love"'],
      ['longestWord("")', '""'],
      ['longestWord("ab cd ef")', '"ab"'],
    ],
    solution:
      "return (sentence.match(/[a-z]+/gi) || []).reduce((best, w) => (w.length > best.length ? w : best), '');",
  },
  {
    name: 'mask-card',
    lang: 'ts',
    fn: 'maskCard',
    instructions:
      'Mask all but the last four characters of a card number with `#`. Strings of four characters or fewer are unchanged. `maskCard("4556364607935616")` is `"############5616"`.',
    signature: '(card: string): string',
    cases: [
      ['maskCard("4556364607935616")', '"############5616"'],
      ['maskCard("1234")', '"1234"'],
      ['maskCard("12345")', '"#2345"'],
    ],
    solution: "return card.length <= 4 ? card : '#'.repeat(card.length - 4) + card.slice(-4);",
  },
  {
    name: 'pig-latin',
    lang: 'js',
    fn: 'pigLatin',
    instructions:
      'Translate one lower-case word to Pig Latin: a word starting with a vowel gets "way" appended; otherwise the leading consonants move to the end, followed by "ay". `pigLatin("string")` is `"ingstray"`, `pigLatin("apple")` is `"appleway"`.',
    signature: '(word)',
    cases: [
      ['pigLatin("string")', '"ingstray"'],
      ['pigLatin("apple")', '"appleway"'],
      ['pigLatin("cat")', '"atcay"'],
    ],
    solution:
      "const m = word.match(/^([^aeiou]*)(.*)$/);\n  return m[1] === '' ? word + 'way' : m[2] + m[1] + 'ay';",
  },
  {
    name: 'balanced-brackets',
    lang: 'ts',
    fn: 'isBalanced',
    instructions:
      'Tell whether the brackets `()[]{}` in a string are balanced and properly nested; other characters are ignored. `isBalanced("{[a](b)}")` is true, `isBalanced("([)]")` is false.',
    signature: '(text: string): boolean',
    cases: [
      ['isBalanced("{[a](b)}")', 'true'],
      ['isBalanced("([)]")', 'false'],
      ['isBalanced("")', 'true'],
      ['isBalanced("((")', 'false'],
      ['isBalanced(")(")', 'false'],
    ],
    solution:
      "const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };\n  const stack: string[] = [];\n  for (const c of text) {\n    if ('([{'.includes(c)) stack.push(c);\n    else if (c in pairs && stack.pop() !== pairs[c]) return false;\n  }\n  return stack.length === 0;",
  },
];
