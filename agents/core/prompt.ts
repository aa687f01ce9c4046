/**
 * Renders `{{name}}` placeholders strictly: a placeholder without a value is a programmer error and throws,
 * so a prompt never reaches a model with a hole in it.
 */
export function renderTemplate(text: string, vars: Readonly<Record<string, string | number>>): string {
  const missing = new Set<string>();
  const rendered = text.replace(/\{\{\s*([A-Za-z_][\w]*)\s*\}\}/g, (_match, name: string) => {
    const value = vars[name];
    if (value === undefined) {
      missing.add(name);
      return '';
    }
    return String(value);
  });
  if (missing.size > 0) {
    throw new Error(`renderTemplate: no value for ${[...missing].map((n) => `{{${n}}}`).join(', ')}`);
  }
  return rendered;
}
