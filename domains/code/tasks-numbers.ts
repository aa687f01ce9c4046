import type { CodeTask } from './task-spec.ts';

export const NUMBER_TASKS: readonly CodeTask[] = [
  {
    name: 'digit-sum',
    lang: 'js',
    fn: 'digitSum',
    instructions: 'Sum the decimal digits of a whole number; the sign is ignored. `digitSum(-472)` is 13.',
    signature: '(n)',
    cases: [
      ['digitSum(-472)', '13'],
      ['digitSum(0)', '0'],
      ['digitSum(99999)', '45'],
    ],
    solution: 'return [...String(Math.abs(n))].reduce((s, d) => s + Number(d), 0);',
  },
  {
    name: 'fizz-buzz-line',
    lang: 'ts',
    fn: 'fizzBuzz',
    instructions:
      'Return the FizzBuzz words from 1 to n as an array: "Fizz" for multiples of 3, "Buzz" for multiples of 5, "FizzBuzz" for both, else the number as a string. `fizzBuzz(5)` is `["1","2","Fizz","4","Buzz"]`.',
    signature: '(n: number): string[]',
    cases: [
      ['fizzBuzz(5)', '["1","2","Fizz","4","Buzz"]'],
      ['fizzBuzz(15)[14]', '"FizzBuzz"'],
      ['fizzBuzz(0)', '[]'],
    ],
    solution:
      "return Array.from({ length: n }, (_, i) => {\n    const k = i + 1;\n    return (k % 3 === 0 ? 'Fizz' : '') + (k % 5 === 0 ? 'Buzz' : '') || String(k);\n  });",
  },
  {
    name: 'is-prime',
    lang: 'js',
    fn: 'isPrime',
    instructions:
      'Tell whether a whole number is prime. Numbers below 2 are not. `isPrime(97)` is true, `isPrime(91)` is false.',
    signature: '(n)',
    cases: [
      ['isPrime(97)', 'true'],
      ['isPrime(91)', 'false'],
      ['isPrime(1)', 'false'],
      ['isPrime(2)', 'true'],
      ['isPrime(-7)', 'false'],
    ],
    solution:
      'if (n < 2) return false;\n  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;\n  return true;',
  },
  {
    name: 'gcd',
    lang: 'ts',
    fn: 'gcd',
    instructions:
      'Greatest common divisor of two whole numbers (signs ignored); `gcd(0, 0)` is 0. `gcd(84, -36)` is 12.',
    signature: '(a: number, b: number): number',
    cases: [
      ['gcd(84, -36)', '12'],
      ['gcd(0, 5)', '5'],
      ['gcd(0, 0)', '0'],
      ['gcd(17, 5)', '1'],
    ],
    solution: 'let [x, y] = [Math.abs(a), Math.abs(b)];\n  while (y !== 0) [x, y] = [y, x % y];\n  return x;',
  },
  {
    name: 'collatz-steps',
    lang: 'js',
    fn: 'collatzSteps',
    instructions:
      'Count the steps to reach 1 in the Collatz process (n → n/2 if even, else 3n+1), starting from a positive whole number. `collatzSteps(6)` is 8; `collatzSteps(1)` is 0.',
    signature: '(n)',
    cases: [
      ['collatzSteps(6)', '8'],
      ['collatzSteps(1)', '0'],
      ['collatzSteps(27)', '111'],
    ],
    solution:
      'let steps = 0;\n  while (n !== 1) {\n    n = n % 2 === 0 ? n / 2 : 3 * n + 1;\n    steps++;\n  }\n  return steps;',
  },
  {
    name: 'roman-numeral',
    lang: 'ts',
    fn: 'toRoman',
    instructions: 'Write a number from 1 to 3999 in Roman numerals. `toRoman(1994)` is `"MCMXCIV"`.',
    signature: '(n: number): string',
    cases: [
      ['toRoman(1994)', '"MCMXCIV"'],
      ['toRoman(4)', '"IV"'],
      ['toRoman(3999)', '"MMMCMXCIX"'],
      ['toRoman(58)', '"LVIII"'],
    ],
    solution:
      "const table: [number, string][] = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];\n  let out = '';\n  for (const [value, letters] of table) {\n    while (n >= value) {\n      out += letters;\n      n -= value;\n    }\n  }\n  return out;",
  },
  {
    name: 'binary-string',
    lang: 'js',
    fn: 'toBinary',
    instructions:
      'Write a non-negative whole number in base 2, without leading zeros. `toBinary(10)` is `"1010"`, `toBinary(0)` is `"0"`.',
    signature: '(n)',
    cases: [
      ['toBinary(10)', '"1010"'],
      ['toBinary(0)', '"0"'],
      ['toBinary(255)', '"11111111"'],
    ],
    solution: 'return n.toString(2);',
  },
  {
    name: 'armstrong-number',
    lang: 'ts',
    fn: 'isArmstrong',
    instructions:
      'Tell whether a non-negative number equals the sum of its digits each raised to the number of digits. `isArmstrong(153)` is true (1³+5³+3³), `isArmstrong(10)` is false.',
    signature: '(n: number): boolean',
    cases: [
      ['isArmstrong(153)', 'true'],
      ['isArmstrong(10)', 'false'],
      ['isArmstrong(9)', 'true'],
      ['isArmstrong(9474)', 'true'],
    ],
    solution:
      'const digits = [...String(n)].map(Number);\n  return digits.reduce((s, d) => s + d ** digits.length, 0) === n;',
  },
  {
    name: 'leap-year',
    lang: 'js',
    fn: 'isLeapYear',
    instructions:
      'Tell whether a year of the Gregorian calendar is a leap year: divisible by 4, except centuries, except every 400 years. `isLeapYear(2000)` is true, `isLeapYear(1900)` is false.',
    signature: '(year)',
    cases: [
      ['isLeapYear(2000)', 'true'],
      ['isLeapYear(1900)', 'false'],
      ['isLeapYear(2024)', 'true'],
      ['isLeapYear(2023)', 'false'],
    ],
    solution: 'return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;',
  },
  {
    name: 'factorial-digits',
    lang: 'ts',
    fn: 'factorialDigits',
    instructions:
      'Return the number of decimal digits of n! for 0 ≤ n ≤ 100 (use BigInt or logarithms). `factorialDigits(10)` is 7 (3628800).',
    signature: '(n: number): number',
    cases: [
      ['factorialDigits(10)', '7'],
      ['factorialDigits(0)', '1'],
      ['factorialDigits(25)', '26'],
      ['factorialDigits(100)', '158'],
    ],
    solution: 'let f = 1n;\n  for (let i = 2n; i <= BigInt(n); i++) f *= i;\n  return f.toString().length;',
  },
  {
    name: 'perfect-number',
    lang: 'js',
    fn: 'classify',
    instructions:
      'Classify a positive whole number by the sum of its proper divisors: "perfect" if equal, "abundant" if greater, "deficient" if smaller. `classify(28)` is "perfect".',
    signature: '(n)',
    cases: [
      ['classify(28)', '"perfect"'],
      ['classify(12)', '"abundant"'],
      ['classify(1)', '"deficient"'],
      ['classify(13)', '"deficient"'],
    ],
    solution:
      "let sum = 0;\n  for (let d = 1; d <= n / 2; d++) if (n % d === 0) sum += d;\n  return sum === n ? 'perfect' : sum > n ? 'abundant' : 'deficient';",
  },
  {
    name: 'round-to-half',
    lang: 'ts',
    fn: 'roundToHalf',
    instructions:
      'Round a number to the nearest multiple of 0.5 (halfway cases round up). `roundToHalf(2.26)` is 2.5, `roundToHalf(2.24)` is 2.',
    signature: '(x: number): number',
    cases: [
      ['roundToHalf(2.26)', '2.5'],
      ['roundToHalf(2.24)', '2'],
      ['roundToHalf(-1.3)', '-1.5'],
      ['roundToHalf(0.75)', '1'],
    ],
    solution: 'return Math.round(x * 2) / 2;',
  },
  {
    name: 'sum-of-multiples',
    lang: 'js',
    fn: 'sumOfMultiples',
    instructions:
      'Sum the distinct numbers below `limit` that are multiples of at least one of the given factors (factors of 0 are ignored). `sumOfMultiples([3, 5], 10)` is 23.',
    signature: '(factors, limit)',
    cases: [
      ['sumOfMultiples([3, 5], 10)', '23'],
      ['sumOfMultiples([0], 5)', '0'],
      ['sumOfMultiples([4, 6], 15)', '30'],
      ['sumOfMultiples([], 100)', '0'],
    ],
    solution:
      'let sum = 0;\n  for (let i = 1; i < limit; i++) if (factors.some((f) => f !== 0 && i % f === 0)) sum += i;\n  return sum;',
  },
];
