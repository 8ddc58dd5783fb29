// Partial REST answers (`?fields=`, AIP-157) over HTTP/1.1 (fetch) and HTTP/2 (curl), with the
// full message still sent to Connect and gRPC clients.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { createClient } from "@connectrpc/connect";
import { ProjectService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestServer, type TestServer } from "./harness.js";

const run = promisify(execFile);
let server: TestServer;
let token: string;
const org = randomUUID();
beforeAll(async () => {
  server = await startTestServer();
  await server.sql(
    `INSERT INTO projects (org_id, name, city, country)
     SELECT $1::uuid, 'Project ' || n, 'Berlin', 'DE' FROM generate_series(1, 3) AS n`,
    [org],
  );
  token = await server.issuer.sign({ sub: randomUUID(), org_id: org });
});
afterAll(async () => {
  await server?.close();
});

describe("?fields= on REST", () => {
  it("returns only the fields named, per project (HTTP/1.1, fetch)", async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/projects?fields=projects(id,name)`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { projects: Record<string, unknown>[] };
    expect(body.projects).toHaveLength(3);
    for (const project of body.projects) expect(Object.keys(project)).toEqual(["id", "name"]);
    expect(Object.keys(body)).toEqual(["projects"]);
  });

  it("returns only the fields named (HTTP/2, curl)", async () => {
    const { stdout } = await run("curl", [
      "-s",
      "--http2-prior-knowledge",
      "-H",
      `authorization: Bearer ${token}`,
      `${server.baseUrl}/api/v1/projects?fields=projects/name`,
    ]);
    expect(JSON.parse(stdout)).toEqual({
      projects: [{ name: "Project 1" }, { name: "Project 2" }, { name: "Project 3" }],
    });
  });

  it("refuses an unknown field with 400 naming it", async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/projects?fields=nope`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("invalid_argument");
    expect(body.error.message).toContain('no field "nope"');
  });

  it("leaves Connect and gRPC answers whole", async () => {
    for (const protocol of ["connect", "grpc"] as const) {
      const client = createClient(ProjectService, server.transport(protocol));
      const answer = await client.listProjects({}, bearer(token));
      expect(answer.projects[0]?.city).toBe("Berlin");
    }
  });
});
