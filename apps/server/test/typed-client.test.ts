import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";
import { binOf, runOffline } from "./tooling.js";

const fixture = fileURLToPath(new URL("./fixtures/typed-client/", import.meta.url));
const serverNodeModules = fileURLToPath(new URL("../node_modules", import.meta.url));

let server: TestServer;
let dir: string;

beforeAll(async () => {
  // Every answer compressed for a client that accepts it: a page of three projects is small.
  server = await startTestServer({ REST_COMPRESS_MIN_BYTES: "0" });
  dir = await mkdtemp(join(tmpdir(), "folio-typed-client-"));
  await cp(fixture, dir, { recursive: true });
  // The client's dependencies (openapi-fetch, @types/node) are the server's dev dependencies.
  await symlink(serverNodeModules, join(dir, "node_modules"), "dir");
});

afterAll(async () => {
  await server?.close();
  await removeTempDir(dir);
});

describe("a client generated from the served OpenAPI document (openapi-typescript + openapi-fetch)", () => {
  it("compiles with tsc --strict without casts or non-null assertions, and runs both operations with HTTP's conditional, partial and compressed answers", async () => {
    const source = await readFile(join(dir, "client.ts"), "utf8");
    const code = source.replace(/\/\/.*$/gm, "");
    // What the test claims: the types need no help.
    expect(code).not.toMatch(/\sas\s/);
    expect(code).not.toMatch(/[\w)\]]!(?!=)/);

    const document = await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).text();
    await writeFile(join(dir, "openapi.json"), document);
    const generate = await runOffline(
      binOf("openapi-typescript", "openapi-typescript"),
      ["openapi.json", "--output", "schema.d.ts"],
      { cwd: dir },
    );
    expect(generate.code, generate.stderr).toBe(0);
    expect(generate.networkAttempts).toEqual([]);

    const compile = await runOffline(binOf("typescript", "tsc"), ["--project", "tsconfig.json"], {
      cwd: dir,
    });
    expect(compile.stdout + compile.stderr).toBe("");
    expect(compile.code).toBe(0);

    // Three projects of the caller's organisation, loaded as other systems load them.
    const orgId = randomUUID();
    await server.sql(
      `insert into projects (org_id, name, city) values ($1, 'Alpha', 'Lyon'), ($1, 'Beta', null), ($1, 'Gamma', 'Turin')`,
      [orgId],
    );
    const token = await server.issuer.sign({ org_id: orgId });
    const run = await runOffline(join(dir, "client.ts"), [], {
      cwd: dir,
      // Node runs the TypeScript as it is (type stripping); its notice of that is not the program's.
      env: { FOLIO_URL: server.baseUrl, FOLIO_TOKEN: token, NODE_NO_WARNINGS: "1" },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.networkAttempts).toEqual([]);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      created: { status: 201, name: "Typed client", color: "#aabbcc" },
      retried: { status: 201 },
      reused: { status: 409, code: "already_exists", details: ["google.rpc.ErrorInfo"] },
      requestId: true,
      names: [
        expect.stringMatching(/^Alpha \(Lyon, \d{4}\)$/),
        expect.stringMatching(/^Beta \(no city, \d{4}\)$/),
        expect.stringMatching(/^Gamma \(Turin, \d{4}\)$/),
      ],
      links: 1,
      // A gzip answer, decoded by fetch; its ETag gives 304; `fields` leaves two keys a project.
      compressed: { encoding: "gzip", projects: 3 },
      conditional: { status: 304, etag: true },
      fields: ["id,name", "id,name", "id,name"],
    });
    const { created, retried } = result as { created: { id: string }; retried: { id: string } };
    expect(retried.id).toBe(created.id);
    // Generating, compiling and running take a while on a busy machine.
  }, 300_000);
});
