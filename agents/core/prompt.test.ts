import { describe, expect, it } from 'vitest';
import { renderTemplate } from './prompt.ts';

describe('renderTemplate', () => {
  it('fills every placeholder', () => {
    expect(renderTemplate('Repo {{repo}}, {{ n }} left, {{repo}} again', { repo: '/r', n: 3 })).toBe(
      'Repo /r, 3 left, /r again',
    );
  });
  it('throws naming the missing variables', () => {
    expect(() => renderTemplate('{{a}} {{b}}', { a: 'x' })).toThrow('{{b}}');
  });
  it('leaves text without placeholders alone', () => {
    expect(renderTemplate('<json>{"response": 1}</json>', {})).toBe('<json>{"response": 1}</json>');
  });
});
