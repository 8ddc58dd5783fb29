import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { FolderService, ProjectService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestServer, type TestServer } from "./harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe("tenant isolation", () => {
  const orgA = randomUUID();
  const orgB = randomUUID();

  it("shows each org only the projects other systems loaded for it", async () => {
    await server.sql(
      `insert into projects (org_id, name, city) values
         ($1, 'A1', 'Lyon'), ($1, 'A2', 'Nice'), ($2, 'B1', 'Graz')`,
      [orgA, orgB],
    );
    const projects = createClient(ProjectService, server.transport("connect"));
    const seenByA = await projects.listProjects({}, bearer(await server.issuer.sign({ org_id: orgA })));
    const seenByB = await projects.listProjects({}, bearer(await server.issuer.sign({ org_id: orgB })));
    expect(seenByA.projects.map((p) => p.name)).toEqual(["A1", "A2"]);
    expect(seenByA.projects.every((p) => p.orgId === orgA)).toBe(true);
    expect(seenByB.projects.map((p) => p.name)).toEqual(["B1"]);
    const seenByC = await projects.listProjects(
      {},
      bearer(await server.issuer.sign({ org_id: randomUUID() })),
    );
    expect(seenByC.projects).toEqual([]);
  });

  it("treats another org's folder as a parent that does not exist", async () => {
    const folders = createClient(FolderService, server.transport("grpc"));
    const { folder } = await folders.createFolder(
      { name: "A's" },
      bearer(await server.issuer.sign({ org_id: orgA })),
    );
    const foreign = await folders
      .createFolder({ name: "B's", parentId: folder!.id }, bearer(await server.issuer.sign({ org_id: orgB })))
      .catch(ConnectError.from);
    const missing = await folders
      .createFolder(
        { name: "B's", parentId: randomUUID() },
        bearer(await server.issuer.sign({ org_id: orgB })),
      )
      .catch(ConnectError.from);
    expect((foreign as ConnectError).code).toBe(Code.NotFound);
    expect((foreign as ConnectError).rawMessage).toBe((missing as ConnectError).rawMessage);
    const rows = await server.sql("select 1 from folders where org_id = $1", [orgB]);
    expect(rows).toHaveLength(0);
  });

  it("refuses a parent id that is not a UUID as invalid_argument", async () => {
    const folders = createClient(FolderService, server.transport("connect"));
    const error = await folders
      .createFolder({ name: "x", parentId: "42" }, bearer(await server.issuer.sign()))
      .catch(ConnectError.from);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
  });
});
