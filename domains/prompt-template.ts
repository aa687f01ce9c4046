import { existsSync, readFileSync, statSync } from 'node:fs';

/**
 * A prompt template: text with `{field}` placeholders (a nested field as `{question.stem}`), `{{` and `}}`
 * for literal braces, as Python's str.format writes them. The value is the template, or a file holding it.
 */
export interface PromptTemplate {
  text: string;
  fields: string[];
}

const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}/g;

/** The template from its text or file; a placeholder that names no field is a message naming it. */
export function readTemplate(
  value: string,
  known: (field: string) => boolean,
  fieldList: string,
): { ok: true; template: PromptTemplate } | { ok: false; message: string } {
  const fromFile = !value.includes('{') && existsSync(value) && statSync(value).isFile();
  const text = fromFile ? readFileSync(value, 'utf8') : value;
  const fields: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m[1] === undefined) continue;
    const field = m[1].trim();
    if (field === '' || !known(field))
      return {
        ok: false,
        message: `--prompt-template${fromFile ? ` ${value}` : ''}: the placeholder {${m[1]}} names no field; ${fieldList}. Write a literal brace as {{ or }}.`,
      };
    fields.push(field);
  }
  if (fields.length === 0)
    return {
      ok: false,
      message: `--prompt-template${fromFile ? ` ${value}` : ''} has no {field} placeholder, so every task would read the same; ${fieldList}.${fromFile ? '' : ' (Or is it a file that does not exist?)'}`,
    };
  return { ok: true, template: { text, fields: [...new Set(fields)] } };
}

/** The prompt for a row; `value` gives a field's text, or undefined where the row lacks it. */
export function renderTemplate(
  template: PromptTemplate,
  value: (field: string) => string | undefined,
): { ok: true; text: string } | { ok: false; field: string } {
  let missing: string | null = null;
  const text = template.text.replace(PLACEHOLDER, (whole, name: string | undefined) => {
    if (name === undefined) return whole[0]!;
    const got = value(name.trim());
    if (got === undefined) missing ??= name.trim();
    return got ?? '';
  });
  return missing === null ? { ok: true, text } : { ok: false, field: missing };
}
