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

/**
 * What a variable names cannot be used at start: a database or Redis out of reach, an address
 * in use. The configuration may be right; the process still cannot start with it.
 */
export class StartupError extends Error {
  override readonly name = "StartupError";
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

/**
 * One environment variable, declared once: the loaders read it by this declaration, and
 * docs/configuration.md is generated from it (`pnpm --filter @folio/server docs:config`).
 */
export interface Setting {
  readonly name: string;
  /** What applies when it is unset, as the documentation shows it (Markdown). */
  readonly default: string;
  /** What it accepts, as the documentation shows it (Markdown). */
  readonly values: string;
  /** What it does (Markdown). */
  readonly meaning: string;
  /** Read by a library from the environment (OpenTelemetry's SDK), not by `loadConfig`. */
  readonly external?: true;
}

/** An integer setting from `min` to `max`; `fallback` when unset, if it has one. */
export interface IntegerSetting<Fallback extends number | undefined = number> extends Setting {
  readonly fallback: Fallback;
  readonly min: number;
  readonly max: number;
}

/** A setting that is one of a few words (`on`/`off`, log levels). */
export interface ChoiceSetting<Choice extends string = string> extends Setting {
  readonly choices: readonly Choice[];
  readonly fallback: Choice;
}

/** A setting's declaration as written: `default` and `values` may be derived from the rest. */
type Declared<S extends Setting> = Omit<S, "default" | "values"> &
  Partial<Pick<Setting, "default" | "values">>;

/** A setting read as text (a URL, a name, a list); `fallback` when unset, if it has one. */
export interface TextSetting<Fallback extends string | undefined = string | undefined> extends Setting {
  readonly fallback: Fallback;
}

/** Declares a text setting; its default is documented from `fallback` unless `default` says more. */
export function textSetting<Fallback extends string | undefined = undefined>(
  setting: Omit<Declared<TextSetting<Fallback>>, "fallback" | "values"> & {
    readonly fallback?: Fallback;
    readonly values: string;
  },
): TextSetting<Fallback> {
  return {
    default: setting.fallback === undefined ? "(unset)" : `\`${setting.fallback}\``,
    fallback: undefined as Fallback,
    ...setting,
  };
}

/** Declares an integer setting; its default and range are documented from `fallback`, `min`, `max`. */
export function integerSetting<Fallback extends number | undefined = number>(
  setting: Declared<IntegerSetting<Fallback>>,
): IntegerSetting<Fallback> {
  return {
    default: setting.fallback === undefined ? "(unset)" : `\`${setting.fallback}\``,
    values: `an integer from \`${setting.min}\` to \`${setting.max}\``,
    ...setting,
  };
}

/** Declares a setting that is one of `choices`. */
export function choiceSetting<Choice extends string>(
  setting: Declared<ChoiceSetting<Choice>>,
): ChoiceSetting<Choice> {
  return {
    default: `\`${setting.fallback}\``,
    values: setting.choices.map((choice) => `\`${choice}\``).join(", "),
    ...setting,
  };
}

/** The settings of one concern, in the order docs/configuration.md lists them. */
export interface SettingGroup {
  readonly title: string;
  readonly settings: readonly Setting[];
}

/** A variable's value, trimmed; undefined when unset or empty. */
export function raw(env: Env, setting: Setting): string | undefined {
  const value = env[setting.name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** A text variable's value, trimmed; its fallback when unset or empty. */
export function text<Fallback extends string | undefined>(
  env: Env,
  setting: TextSetting<Fallback>,
): string | Fallback {
  return raw(env, setting) ?? setting.fallback;
}

/** An integer variable from `min` to `max`; undefined when unset. */
export function optionalInteger(env: Env, setting: IntegerSetting<number | undefined>): number | undefined {
  return raw(env, setting) === undefined ? undefined : integer(env, { ...setting, fallback: 0 });
}

/** An integer variable from `min` to `max`, `fallback` when unset. */
export function integer(env: Env, setting: IntegerSetting): number {
  const { name, fallback, min, max } = setting;
  const value = raw(env, setting);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

/** One of the setting's choices, matched without regard to case; its fallback when unset. */
export function choice<Choice extends string>(env: Env, setting: ChoiceSetting<Choice>): Choice {
  const value = raw(env, setting)?.toLowerCase();
  if (value === undefined) return setting.fallback;
  const chosen = setting.choices.find((c) => c === value);
  if (chosen === undefined)
    throw new ConfigError(setting.name, `must be ${or(setting.choices)} (got "${value}")`);
  return chosen;
}

/** `a or b`, `a, b or c`. */
function or(words: readonly string[]): string {
  return words.length <= 2 ? words.join(" or ") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}
