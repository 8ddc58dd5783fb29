import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pino } from "pino";
import { createApp } from "./app.js";
import { METRICS_HOST, METRICS_PORT } from "./config/observability.js";
import { HOST, PORT } from "./config/server.js";
import { DEMO_ORG_ID, DEMO_USER_ID } from "./demo.js";
import { type Config, loadConfig } from "./env.js";
import { logFormat } from "./observe/log-format.js";
import { serveMetrics } from "./observe/metrics-listener.js";
import { startTracing, traceContextMixin, tracingRequested } from "./observe/tracing.js";
import { apiScopeNames } from "./services/api.js";
import { settlesWithin } from "./settles-within.js";
import { type Command, parseCommand } from "./startup/command.js";
import { failureLine } from "./startup/failure.js";
import { listenFailure } from "./startup/listen-address.js";
import { runMigrateCommand } from "./startup/migrate-command.js";
import { checkStartup } from "./startup/preflight.js";
import { listen } from "./transport/listen.js";

/** The command of the process's arguments; exits 2 with the usage on any other. */
function commandOrExit(): Command {
  try {
    return parseCommand(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`folio: ${(error as Error).message}\n`);
    process.exit(2);
  }
}

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    const line = failureLine(error);
    if (line !== undefined) {
      process.stderr.write(`${line}\n`);
      process.exit(1);
    }
    throw error;
  }
}

const command = commandOrExit();
// `migrate` reads only the database's settings, and serves nothing.
if (command.name === "migrate") process.exit(await runMigrateCommand(command));
const config = configOrExit();
const logger = pino({ ...logFormat(config.logLevel), mixin: traceContextMixin });

/** Resolves after `ms`, or at once when `interrupted` is. */
function pause(ms: number, interrupted: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([new Promise<void>((done) => (timer = setTimeout(done, ms))), interrupted]).finally(
    () => clearTimeout(timer),
  );
}

/**
 * How long closing (the database, the metrics listener, the traces) may take after the drain's
 * bound before the process exits anyway: within the margin of 1 s that docs/operations.md states,
 * the rest of it left for exiting.
 */
const CLOSE_WITHIN_MS = 800;
/** How long the database's close waits for the statements it cancels, then for the embedded database. */
const DATABASE_CLOSE_MS = 350;

try {
  // What the configuration names outside the process, before anything changes.
  await checkStartup(config);
  // Before anything else, so that every request and query is traced.
  const tracing = tracingRequested() ? await startTracing() : undefined;
  if (tracing !== undefined) logger.info("tracing on (OpenTelemetry, configured by the OTEL_* variables)");
  const app = await createApp(config, logger);
  const metricsAddress = config.metrics;
  const metrics =
    metricsAddress === undefined
      ? undefined
      : await serveMetrics(app.metrics.registry, metricsAddress).catch((error: unknown) => {
          throw listenFailure(error, metricsAddress.host, metricsAddress.port, {
            host: METRICS_HOST.name,
            port: METRICS_PORT.name,
          });
        });
  if (metrics !== undefined) logger.info({ url: metrics.url }, "metrics listening");
  const server = await listen(app.handler, {
    host: config.host,
    port: config.port,
    limits: config.connections,
  }).catch((error: unknown) => {
    throw listenFailure(error, config.host, config.port, { host: HOST.name, port: PORT.name });
  });
  // SIGTERM/SIGINT, from the moment it listens (before it says so: a supervisor may stop it as
  // soon as it reads that line): not ready at once (so load balancers stop sending), still serving for
  // SHUTDOWN_GRACE_MS (while they notice), then draining: new connections refused, requests in
  // flight finished within SHUTDOWN_TIMEOUT_MS, connections closed; then the pool, its statements
  // still running cancelled; exit 0, by SHUTDOWN_GRACE_MS + SHUTDOWN_TIMEOUT_MS + 1 s whatever
  // the database does. A second signal skips what is left of the grace period.
  let stopping = false;
  let skipGrace: () => void = () => undefined;
  const graceSkipped = new Promise<void>((resolve) => {
    skipGrace = resolve;
  });
  const stop = async (signal: string) => {
    if (stopping) {
      skipGrace();
      return;
    }
    stopping = true;
    app.beginShutdown();
    logger.info(
      { signal, graceMs: config.shutdownGraceMs, timeoutMs: config.shutdownTimeoutMs },
      "shutting down: not ready; still serving during the grace period",
    );
    await pause(config.shutdownGraceMs, graceSkipped);
    logger.info("draining: new connections refused, requests in flight finishing");
    // The bound a supervisor is promised (Kubernetes kills at terminationGracePeriodSeconds):
    // whatever still runs past it is left to the exit.
    const boundMs = config.shutdownTimeoutMs + CLOSE_WITHIN_MS;
    if (!(await settlesWithin(drainAndClose(), boundMs))) {
      logger.warn({ boundMs }, "shutdown bound reached: exiting before closing finished");
    }
    logger.info("stopped");
    logger.flush();
    process.exit(0);
  };
  /** Drains the connections, cutting those still busy at SHUTDOWN_TIMEOUT_MS, then closes the rest. */
  const drainAndClose = async () => {
    app.endStreams();
    const { cutConnections } = await server.close(config.shutdownTimeoutMs);
    if (cutConnections > 0) {
      logger.warn(
        { cutConnections, timeoutMs: config.shutdownTimeoutMs },
        "shutdown timeout reached: connections with requests in flight were cut",
      );
    }
    await app.close(DATABASE_CLOSE_MS);
    await metrics?.close();
    await tracing
      ?.shutdown()
      .catch((error: unknown) => logger.warn({ err: error }, "flushing traces failed"));
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  const baseUrl = `http://${server.host.includes(":") ? `[${server.host}]` : server.host}:${server.port}`;
  logger.info({ url: baseUrl, embeddedDatabase: app.database.embedded }, "listening");

  if (app.developmentIssuer !== undefined) {
    const token = await app.developmentIssuer.mint({
      userId: DEMO_USER_ID,
      orgId: DEMO_ORG_ID,
      scopes: apiScopeNames,
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
        `A token for the demo org (${DEMO_ORG_ID}) with every scope of the API (${apiScopeNames.join(" ")}), valid 12 h:`,
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
} catch (error) {
  const line = failureLine(error);
  if (line !== undefined) process.stderr.write(`${line}\n`);
  else logger.fatal({ err: error }, "start-up failed");
  process.exit(1);
}
