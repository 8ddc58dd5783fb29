import { ConfigError, type Env, type SettingGroup, text, textSetting } from "./variables.js";

export const CORS_ALLOWED_ORIGINS = textSetting({
  name: "CORS_ALLOWED_ORIGINS",
  values: "comma-separated origins (`scheme://host[:port]`)",
  meaning:
    "Comma-separated origins (`https://app.example.com,http://localhost:5173`, exact, no path) whose " +
    "pages may call the API from a browser, by REST, Connect or gRPC-Web. Unset: none, and no CORS " +
    "header is sent. Bearer tokens only: cookies are never allowed.",
});

/** Which browser pages may call the API. */
export const corsSettings: SettingGroup = {
  title: "Browsers (CORS)",
  settings: [CORS_ALLOWED_ORIGINS],
};

/** Comma-separated exact origins (`scheme://host[:port]`); a path, a wildcard or `null` is refused. */
export function loadCorsAllowedOrigins(env: Env): string[] {
  const origins = (text(env, CORS_ALLOWED_ORIGINS) ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "");
  for (const origin of origins) {
    // An origin is what URL.origin serialises to: browsers send exactly that in the Origin header.
    if (
      !URL.canParse(origin) ||
      !/^https?:$/.test(new URL(origin).protocol) ||
      new URL(origin).origin !== origin
    ) {
      throw new ConfigError(
        "CORS_ALLOWED_ORIGINS",
        `must list origins such as https://app.example.com or http://localhost:5173, without path or trailing slash (got "${origin}")`,
      );
    }
  }
  return origins;
}
