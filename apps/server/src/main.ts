import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { createApp } from "./app.js";
import { DEMO_ORG_ID, DEMO_USER_ID } from "./demo.js";
import { type Config, ConfigError, loadConfig } from "./env.js";
import { listen } from "./http/listen.js";

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`folio: invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

const config = configOrExit();
const logger = pino({ level: config.logLevel, base: { service: "folio" } });

try {
  const app = await createApp(config, logger);
  const server = await listen(app.handler, {
    host: config.host,
    port: config.port,
    limits: config.connections,
  });
  const baseUrl = `http://${server.host.includes(":") ? `[${server.host}]` : server.host}:${server.port}`;
  logger.info({ url: baseUrl, embeddedDatabase: app.database.embedded }, "listening");

  if (app.developmentIssuer !== undefined) {
    const token = await app.developmentIssuer.mint({
      userId: DEMO_USER_ID,
      orgId: DEMO_ORG_ID,
      scopes: ["files:upload", "project:read"],
    });
    const tokenFile = join(config.dataDir, "dev-token");
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
    logger.warn(
      { jwks: `${baseUrl}/.well-known/jwks.json`, tokenFile },
      "DEVELOPMENT MODE: no AUTH_JWKS_URL or AUTH_JWKS_FILE set; this server signs its own tokens. Never use it in production.",
    );
    process.stderr.write(
      [
        "",
        `A token for the demo org (${DEMO_ORG_ID}) with scopes files:upload and project:read, valid 12 h:`,
        "",
        `  export FOLIO_TOKEN=${token}`,
        "",
        "Open the web app (the token goes into the browser tab's storage, not the address):",
        "",
        `  ${baseUrl}/#token=${token}`,
        "",
        "Try:",
        `  curl -s ${baseUrl}/folio.v1.ProjectService/ListProjects -H "Authorization: Bearer $FOLIO_TOKEN" -H 'Content-Type: application/json' -d '{}'`,
        "",
      ].join("\n"),
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    await server.close(config.shutdownTimeoutMs);
    await app.close();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
} catch (error) {
  logger.fatal({ err: error }, "start-up failed");
  process.exit(1);
}
