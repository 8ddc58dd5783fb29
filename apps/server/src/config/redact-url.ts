/** Query parameters of a connection URL that carry a secret (libpq's `password`, `sslpassword`). */
const SECRET_PARAMETER = /password/i;

/**
 * A URL setting's value as messages and logs may show it: its password, in the user info or a
 * query parameter, replaced by `***`. A value that does not parse as a URL is not shown at all.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(not a URL)";
  }
  if (parsed.password !== "") parsed.password = "***";
  for (const name of new Set(parsed.searchParams.keys())) {
    if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, "***");
  }
  return parsed.toString();
}
