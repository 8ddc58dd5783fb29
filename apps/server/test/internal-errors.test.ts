import { createClient } from "@connectrpc/connect";
import { ProjectService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, PROTOCOLS, startTestServer, type TestServer } from "./harness.js";

let server: TestServer;
const logs: Record<string, unknown>[] = [];
beforeAll(async () => {
  server = await startTestServer({}, { log: (line) => logs.push(line) });
  // The database fails every query of ListProjects, as it would after a bad deploy.
  await server.sql("alter table projects rename to projects_moved");
});
afterAll(async () => {
  await server?.close();
});

/** What must never reach a client: SQL, table names, driver messages, stack frames. */
const LEAKS = /projects_moved|relation|select|sql|prisma|\bat \w+ \(|\.ts:\d+|\.js:\d+/i;

describe("an unexpected failure", () => {
  it("is 500 internal over REST with only the request id, and logged with the cause and that id", async () => {
    const token = await server.issuer.sign();
    const response = await fetch(`${server.baseUrl}/api/v1/projects`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await response.text();
    expect(response.status).toBe(500);
    const requestId = response.headers.get("x-request-id");
    expect(JSON.parse(text)).toEqual({
      error: {
        code: "internal",
        message: `internal error (request id ${requestId})`,
        requestId,
        details: [],
      },
    });
    expect(text).not.toMatch(LEAKS);
    const logged = logs.find((line) => line.requestId === requestId && line.msg === "request failed");
    expect(JSON.stringify(logged?.err)).toMatch(/projects/);
  });

  it.each(PROTOCOLS)("is internal over %s, without the cause", async (protocol) => {
    const client = createClient(ProjectService, server.transport(protocol));
    const error = await client.listProjects({}, bearer(await server.issuer.sign())).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 13 /* Code.Internal */ });
    expect((error as Error).message).toMatch(/^\[internal\] internal error \(request id [\w-]+\)$/);
    expect((error as Error).message).not.toMatch(LEAKS);
  });
});
