// Folio's port through `buf curl`, as a user calls it from a shell: the schema from gRPC server
// reflection (with the caller's token, as a server with a JWKS wants; without one in development
// mode), each of the three RPC protocols over h2c.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

/** The buf CLI of the workspace (a dev dependency of proto/). */
const BUF = fileURLToPath(new URL("../../../proto/node_modules/@bufbuild/buf/bin/buf", import.meta.url));

let server: TestServer;
/** A server in development mode (no JWKS), where reflection needs no token. */
let development: TestServer;
beforeAll(async () => {
  [server, development] = await Promise.all([startTestServer(), startTestServer({ AUTH_JWKS_FILE: "" })]);
});
afterAll(async () => {
  await Promise.all([server?.close(), development?.close()]);
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `buf curl` with `args`, ending with the method's URL on `on` (the test server by default). */
function bufCurl(args: readonly string[], method: string, on: TestServer = server): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BUF, "curl", "--http2-prior-knowledge", ...args, `${on.baseUrl}/${method}`],
      { timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe.each(["grpc", "grpcweb", "connect"])("buf curl --protocol %s", (protocol) => {
  const orgId = randomUUID();
  const auth = async () =>
    `Authorization: Bearer ${await server.issuer.sign({ sub: randomUUID(), org_id: orgId })}`;

  it("creates a folder, with the schema from server reflection", async () => {
    const name = `buf ${protocol}`;
    // --reflect-header '*': the token goes with the reflection requests too.
    const run = await bufCurl(
      ["--protocol", protocol, "-H", await auth(), "--reflect-header", "*", "-d", JSON.stringify({ name })],
      "folio.v1.FolderService/CreateFolder",
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const { folder } = JSON.parse(run.stdout) as { folder: { name: string; orgId: string } };
    expect(folder).toMatchObject({ name, orgId });
  });

  it("shows an invalid request's code and field violation", async () => {
    const run = await bufCurl(
      [
        "--protocol",
        protocol,
        "-H",
        await auth(),
        "--reflect-header",
        "*",
        "-d",
        JSON.stringify({ name: "" }),
      ],
      "folio.v1.FolderService/CreateFolder",
    );
    expect(run.code).not.toBe(0);
    const error = JSON.parse(run.stderr) as { code: string; details?: { type: string }[] };
    expect(error.code).toBe("invalid_argument");
    expect(error.details?.map((d) => d.type)).toContain("google.rpc.BadRequest");
  });

  it("answers the gRPC health check without a token in development mode", async () => {
    const run = await bufCurl(
      ["--protocol", protocol, "-d", "{}"],
      "grpc.health.v1.Health/Check",
      development,
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ status: "SERVING" });
  });
});
