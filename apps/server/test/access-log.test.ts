// The access log: one JSON line per request, whatever its protocol or outcome, saying what an
// operator needs to find it again (request id, trace id) and what became of it, and never the
// caller's token.
import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { ProjectService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFolder } from "./api.js";
import { startTestServer, type TestServer } from "./harness.js";

const raw: string[] = [];
const lines: Record<string, unknown>[] = [];
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(
    {},
    {
      log: (line) => {
        lines.push(line);
        raw.push(JSON.stringify(line));
      },
    },
  );
});
afterAll(async () => {
  await server?.close();
});

/** The access log lines of a request id, once written (after the response). */
async function linesOf(requestId: string) {
  await expect.poll(() => lines.filter((l) => l.requestId === requestId).length, { timeout: 5_000 }).toBe(1);
  return lines.filter((l) => l.requestId === requestId);
}

describe("the access log", () => {
  it("writes one line per request with method, protocol, code, status, duration and request id", async () => {
    const token = await server.issuer.sign({ org_id: randomUUID() });
    const rest = randomUUID();
    await createFolder(server, "rest", { name: "Logged" }, { token, headers: { "x-request-id": rest } });
    const [restLine] = await linesOf(rest);
    expect(restLine).toMatchObject({
      msg: "request completed",
      method: "folio.v1.FolderService/CreateFolder",
      protocol: "rest",
      code: "ok",
      status: 201,
      httpMethod: "POST",
      path: "/api/v1/folders",
    });
    expect(restLine?.durationMs).toEqual(expect.any(Number));

    const grpc = randomUUID();
    await createClient(ProjectService, server.transport("grpc"))
      .listProjects({}, { headers: { "x-request-id": grpc } })
      .catch(() => undefined);
    const [grpcLine] = await linesOf(grpc);
    expect(grpcLine).toMatchObject({
      method: "folio.v1.ProjectService/ListProjects",
      protocol: "grpc",
      code: "unauthenticated",
      status: 200,
      httpVersion: "2.0",
    });
  });

  it("never writes the Authorization header's token, valid or not, on any protocol", async () => {
    const valid = await server.issuer.sign({ org_id: randomUUID() });
    const forged = `${valid.slice(0, -8)}AAAAAAAA`;
    for (const token of [valid, forged]) {
      const headers = { authorization: `Bearer ${token}` };
      await createFolder(server, "rest", { name: `Secret ${randomUUID()}` }, { token });
      await fetch(`${server.baseUrl}/api/v1/projects?pageSize=1`, { headers });
      for (const protocol of ["connect", "grpc", "grpc-web"] as const) {
        await createClient(ProjectService, server.transport(protocol))
          .listProjects({}, { headers })
          .catch(() => undefined);
      }
    }
    await expect.poll(() => raw.length).toBeGreaterThan(10);
    const signature = valid.split(".")[2] as string;
    for (const line of raw) {
      expect(line).not.toContain(signature);
      expect(line).not.toContain(forged.split(".")[2] as string);
      expect(line.toLowerCase()).not.toContain("bearer ");
    }
  });
});
