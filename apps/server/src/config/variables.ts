/** The environment the configuration is read from. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A variable that is set to something the server cannot use. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

/** A variable's value, trimmed; undefined when unset or empty. */
export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** An integer variable from `min` to `max`; undefined when unset. */
export function optionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  return text(env, name) === undefined ? undefined : integer(env, name, 0, min, max);
}

/** An integer variable from `min` to `max`, `fallback` when unset. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}
