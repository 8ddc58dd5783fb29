import { ConfigError, StartupError } from "../config/variables.js";

/**
 * The one line (without its newline) that explains a failed start, for an error a setting
 * explains: invalid configuration, or something a setting names that cannot be used. Undefined for
 * any other error, which is logged with its stack.
 */
export function failureLine(error: unknown): string | undefined {
  if (error instanceof ConfigError) return `folio: invalid configuration: ${oneLine(error.message)}`;
  if (error instanceof StartupError) return `folio: ${oneLine(error.message)}`;
  return undefined;
}

/** `text` with its line breaks made spaces: a message from elsewhere (a driver) may hold some. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ");
}
