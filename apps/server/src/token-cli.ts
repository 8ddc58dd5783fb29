import { parseArgs } from "node:util";
import { isUuid, loadDevelopmentIssuer } from "@folio/auth";
import { DEMO_ORG_ID, DEMO_USER_ID } from "./demo.js";
import { ConfigError, loadConfig } from "./env.js";
import { apiScopeNames } from "./services/api.js";

// Mints a development-mode access token with the key of the server's DATA_DIR, from the repository
// root (npm's `--` hands the flags to the command; `npm run --silent token -- ...` prints the token alone):
//   npm run token -- [--org <uuid>] [--user <uuid>] [--scope project:read]... [--ttl 3600]
// Without --scope, the token carries every scope of the API, read from the proto's descriptors.

const usage =
  "usage: npm run token -- [--org <uuid>] [--user <uuid>] [--scope <scope>]... [--ttl <seconds>]\n" +
  "  e.g. npm run token -- --org 7a0f2f4e-1111-4a4a-8b8b-123456789abc --scope project:read\n" +
  `defaults: the demo org ${DEMO_ORG_ID}, the demo user ${DEMO_USER_ID}, every scope (${apiScopeNames.join(" ")}), 12 h\n`;

try {
  const { values } = parseArgs({
    options: {
      org: { type: "string", default: DEMO_ORG_ID },
      user: { type: "string", default: DEMO_USER_ID },
      scope: { type: "string", multiple: true, default: [...apiScopeNames] },
      ttl: { type: "string", default: String(12 * 3600) },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  const config = loadConfig();
  if (config.auth.mode !== "development") {
    throw new Error("AUTH_JWKS_URL or AUTH_JWKS_FILE is set: tokens come from your issuer, not from Folio");
  }
  if (!/^\d+$/.test(values.ttl)) throw new Error("--ttl must be a number of seconds");
  for (const [flag, value] of [
    ["--org", values.org],
    ["--user", values.user],
  ] as const) {
    if (!isUuid(value)) throw new Error(`${flag} must be a UUID (got "${value}")`);
  }
  const issuer = await loadDevelopmentIssuer(config.dataDir, config.auth);
  const token = await issuer.mint({
    orgId: values.org,
    userId: values.user,
    scopes: values.scope.flatMap((scope) => scope.split(" ")).filter((scope) => scope !== ""),
    expiresInSeconds: Number(values.ttl),
  });
  process.stdout.write(`${token}\n`);
} catch (error) {
  const message =
    error instanceof ConfigError ? `invalid configuration: ${error.message}` : (error as Error).message;
  process.stderr.write(`folio token: ${message}\n${usage}`);
  process.exit(2);
}
