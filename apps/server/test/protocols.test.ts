import { randomUUID } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { FolderService, ProjectService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, PROTOCOLS, startTestServer, type TestServer } from "./harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe.each(PROTOCOLS)("over %s", (protocol) => {
  const orgId = randomUUID();
  const userId = randomUUID();
  const token = () => server.issuer.sign({ sub: userId, org_id: orgId });

  it("creates a folder with the caller's org and user, visibility private and a database time", async () => {
    const folders = createClient(FolderService, server.transport(protocol));
    const before = Date.now();
    const { folder } = await folders.createFolder(
      { name: "Contracts", color: "#ff0000" },
      bearer(await token()),
    );
    expect(folder).toMatchObject({
      orgId,
      name: "Contracts",
      color: "#ff0000",
      visibility: "private",
      createdByUserId: userId,
    });
    expect(folder?.parentId).toBeUndefined();
    expect(folder?.id).toMatch(/^[0-9a-f-]{36}$/);
    const createdAt = timestampDate(folder!.createdAt!).getTime();
    expect(createdAt).toBeGreaterThan(before - 5_000);
    expect(createdAt).toBeLessThan(Date.now() + 5_000);

    const [row] = await server.sql("select org_id, created_by_user_id from folders where id = $1", [
      folder?.id,
    ]);
    expect(row).toEqual({ org_id: orgId, created_by_user_id: userId });
  });

  it("creates a folder under a parent folder of the same org", async () => {
    const folders = createClient(FolderService, server.transport(protocol));
    const { folder: parent } = await folders.createFolder({ name: "Parent" }, bearer(await token()));
    const { folder: child } = await folders.createFolder(
      { name: "Child", parentId: parent!.id },
      bearer(await token()),
    );
    expect(child?.parentId).toBe(parent?.id);
  });

  it("lists the caller's projects ordered by name", async () => {
    await server.sql(
      "insert into projects (org_id, name, street, house_number, postal_code, city, country) values ($1, 'Beta', 'Main St', '12a', '10115', 'Berlin', 'DE'), ($1, 'Alpha', null, null, null, null, null)",
      [orgId],
    );
    const projects = createClient(ProjectService, server.transport(protocol));
    const response = await projects.listProjects({}, bearer(await token()));
    expect(response.projects.map((p) => p.name)).toEqual(["Alpha", "Beta"]);
    expect(response.projects[1]).toMatchObject({
      orgId,
      street: "Main St",
      houseNumber: "12a",
      postalCode: "10115",
      city: "Berlin",
      country: "DE",
    });
    expect(response.projects[0]?.street).toBeUndefined();
  });

  it.each([
    ["empty", ""],
    ["blank", "   "],
  ])("refuses an %s name with invalid_argument and stores nothing", async (_case, name) => {
    const folders = createClient(FolderService, server.transport(protocol));
    const error = await folders.createFolder({ name }, bearer(await token())).catch(ConnectError.from);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    const rows = await server.sql("select 1 from folders where org_id = $1 and name = $2", [orgId, name]);
    expect(rows).toHaveLength(0);
  });

  it("refuses a call without a token as unauthenticated", async () => {
    const projects = createClient(ProjectService, server.transport(protocol));
    const error = await projects.listProjects({}).catch(ConnectError.from);
    expect((error as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it("answers with an X-Request-Id header, keeping a well-formed one from the client", async () => {
    const projects = createClient(ProjectService, server.transport(protocol));
    let seen: string | null = null;
    await projects.listProjects(
      {},
      {
        ...bearer(await token(), { "x-request-id": "trace-42" }),
        onHeader: (h) => (seen = h.get("x-request-id")),
      },
    );
    expect(seen).toBe("trace-42");

    let generated: string | null = null;
    const error = await projects
      .listProjects({}, { onHeader: (h) => (generated = h.get("x-request-id")) })
      .catch(ConnectError.from);
    expect(error).toBeInstanceOf(ConnectError);
    // On errors the id may arrive with the error's metadata instead of the headers callback.
    const id = generated ?? (error as ConnectError).metadata.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
