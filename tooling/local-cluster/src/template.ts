import { readFile } from "node:fs/promises";

/** The directory of the configuration templates (`config/` of this package). */
export const TEMPLATES_DIR = new URL("../config/", import.meta.url);

/**
 * Reads `config/<name>` and replaces each `{{KEY}}` with `values[KEY]`. A placeholder without a
 * value is an error, so a template and its caller cannot drift apart unnoticed.
 */
export async function renderTemplate(
  name: string,
  values: Readonly<Record<string, string | number>>,
): Promise<string> {
  const text = await readFile(new URL(name, TEMPLATES_DIR), "utf8");
  return text.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`config/${name}: no value for {{${key}}}`);
    return String(value);
  });
}
