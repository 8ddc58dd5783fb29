import { NODE_ENV } from "./server.js";
import { ConfigError, choice, choiceSetting, type Env, raw } from "./variables.js";

export const DEVELOPMENT_MODE_REMOTE_DATABASE = choiceSetting({
  name: "DEVELOPMENT_MODE_REMOTE_DATABASE",
  choices: ["refuse", "allow"],
  fallback: "refuse",
  meaning:
    "Development mode (no `AUTH_JWKS_URL` or `AUTH_JWKS_FILE`) signs its own tokens, serves a token " +
    "endpoint that mints every scope and seeds demo projects into an empty database, so it runs only " +
    "on a database of this machine: the embedded one, or a `DATABASE_URL` whose host is `localhost`, " +
    "`127.0.0.1` (any `127.*`), `::1` or a Unix socket's directory. `allow` lets it use a database " +
    "elsewhere too (a development database in a container on another host); never in production.",
});

/** The hosts that are this machine, as a DATABASE_URL names them. */
const THIS_MACHINE = new Set(["localhost", "::1"]);

/**
 * The host the PostgreSQL client connects to for `url`: a `host` query parameter wins (as for
 * libpq and node-postgres), else the URL's host, percent-decoded (a socket's directory is written
 * `%2Fvar%2Frun%2Fpostgresql`), without an IPv6 literal's brackets; empty when it names none.
 */
export function databaseHost(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "";
  }
  const host = parsed.searchParams.get("host") ?? decodeURIComponent(parsed.hostname);
  return host.replace(/^\[(.*)\]$/, "$1");
}

/** Whether `host` (see {@link databaseHost}) is this machine: loopback or a Unix socket's directory. */
export function isThisMachine(host: string): boolean {
  return host.startsWith("/") || THIS_MACHINE.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Reads DEVELOPMENT_MODE_REMOTE_DATABASE and, for `development` mode (no JWKS), throws unless it was
 * asked for: NODE_ENV unset or `development` (any case; `Production`, `prod`, `staging`, `test` all
 * require a JWKS), and the database on this machine unless DEVELOPMENT_MODE_REMOTE_DATABASE=allow.
 * A typo must not put a server that mints its own tokens in front of a real database.
 */
export function checkDevelopmentMode(env: Env, databaseUrl: string | undefined, development: boolean): void {
  const allowRemoteDatabase = choice(env, DEVELOPMENT_MODE_REMOTE_DATABASE) === "allow";
  if (!development) return;
  const nodeEnv = raw(env, NODE_ENV);
  if (nodeEnv !== undefined && nodeEnv.toLowerCase() !== "development") {
    throw new ConfigError(
      "AUTH_JWKS_URL",
      `or AUTH_JWKS_FILE is required when NODE_ENV=${nodeEnv} (development mode, which signs its own tokens, runs only with NODE_ENV unset or development)`,
    );
  }
  if (databaseUrl === undefined || allowRemoteDatabase) return;
  const host = databaseHost(databaseUrl);
  if (!isThisMachine(host)) {
    throw new ConfigError(
      "AUTH_JWKS_URL",
      `or AUTH_JWKS_FILE is required with a DATABASE_URL on another machine (host ${host === "" ? "not named" : `"${host}"`}): development mode, which signs its own tokens and seeds demo projects, runs only on a database of this machine unless ${DEVELOPMENT_MODE_REMOTE_DATABASE.name}=allow`,
    );
  }
}
