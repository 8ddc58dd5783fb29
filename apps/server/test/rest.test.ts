import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findWebAppDir } from "../src/endpoints/web-app.js";
import { startTestServer, type TestServer } from "./harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const orgId = randomUUID();
const userId = randomUUID();

async function rest(
  method: string,
  path: string,
  options: { token?: string | null; body?: string; type?: string } = {},
) {
  const token =
    options.token === undefined ? await server.issuer.sign({ sub: userId, org_id: orgId }) : options.token;
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = options.type ?? "application/json";
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text === "" ? undefined : JSON.parse(text),
  };
}

/** Asserts the spec's error envelope, with requestId equal to the X-Request-Id header. */
function expectEnvelope(response: Awaited<ReturnType<typeof rest>>, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(Object.keys(response.json)).toEqual(["error"]);
  expect(response.json.error).toMatchObject({ code, message: expect.any(String) });
  expect(response.json.error.requestId).toBe(response.headers.get("x-request-id"));
  expect(response.json.error).toHaveProperty("details");
}

describe("REST at /api/v1", () => {
  it("POST /folders answers 201 with the single key folder and every field present", async () => {
    const response = await rest("POST", "/api/v1/folders", { body: JSON.stringify({ name: "Invoices" }) });
    expect(response.status).toBe(201);
    expect(Object.keys(response.json)).toEqual(["folder"]);
    expect(response.json.folder).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      orgId,
      name: "Invoices",
      parentId: null,
      color: null,
      visibility: "private",
      createdByUserId: userId,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // Absent fields read where the schema lists them, not at the end.
    expect(Object.keys(response.json.folder)).toEqual([
      "id",
      "orgId",
      "name",
      "parentId",
      "color",
      "visibility",
      "createdByUserId",
      "createdAt",
    ]);
    const child = await rest("POST", "/api/v1/folders", {
      body: JSON.stringify({ name: "2026", parentId: response.json.folder.id, color: "#00ff00" }),
    });
    expect(child.status).toBe(201);
    expect(child.json.folder).toMatchObject({ parentId: response.json.folder.id, color: "#00ff00" });
  });

  it("GET /projects answers 200 with the single key projects, the caller's org only", async () => {
    await server.sql(
      "insert into projects (org_id, name, city) values ($1, 'Mine', 'Oslo'), ($2, 'Theirs', 'Rome')",
      [orgId, randomUUID()],
    );
    const response = await rest("GET", "/api/v1/projects");
    expect(response.status).toBe(200);
    expect(Object.keys(response.json)).toEqual(["projects"]);
    expect(response.json.projects).toEqual([
      {
        id: expect.any(String),
        orgId,
        name: "Mine",
        street: null,
        houseNumber: null,
        postalCode: null,
        city: "Oslo",
        country: null,
        createdAt: expect.any(String),
      },
    ]);
  });

  it("refuses a missing token with 401, the envelope and a Bearer challenge", async () => {
    const response = await rest("GET", "/api/v1/projects", { token: null });
    expectEnvelope(response, 401, "unauthenticated");
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="folio"');
  });

  it("refuses a token without the scope with 403 insufficient_scope", async () => {
    const token = await server.issuer.sign({ scope: "files:upload" });
    const response = await rest("GET", "/api/v1/projects", { token });
    expectEnvelope(response, 403, "permission_denied");
    expect(response.headers.get("www-authenticate")).toContain(
      'error="insufficient_scope", scope="project:read"',
    );
  });

  it("returns 404 for a parent folder of another org, and stores nothing", async () => {
    const other = await rest("POST", "/api/v1/folders", {
      token: await server.issuer.sign(),
      body: JSON.stringify({ name: "Elsewhere" }),
    });
    const response = await rest("POST", "/api/v1/folders", {
      body: JSON.stringify({ name: "Sneaky", parentId: other.json.folder.id }),
    });
    expectEnvelope(response, 404, "not_found");
    expect(await server.sql("select 1 from folders where name = 'Sneaky'")).toHaveLength(0);
  });

  it.each([
    ["an empty name", JSON.stringify({ name: "" }), "application/json", 400, "invalid_argument"],
    [
      "mass assignment of orgId",
      JSON.stringify({ name: "x", orgId: randomUUID() }),
      "application/json",
      400,
      "invalid_argument",
    ],
    ["malformed JSON", "{name:", "application/json", 400, "invalid_argument"],
    ["a form body", "name=x", "application/x-www-form-urlencoded", 415, "invalid_argument"],
    [
      "a body over the limit",
      JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
      "application/json",
      413,
      "resource_exhausted",
    ],
  ])("answers %s with the envelope and changes nothing", async (_case, body, type, status, code) => {
    const before = await server.sql("select count(*)::int as n from folders");
    const response = await rest("POST", "/api/v1/folders", { body, type });
    expectEnvelope(response, status, code);
    expect(await server.sql("select count(*)::int as n from folders")).toEqual(before);
  });

  it("names the unknown field it refuses", async () => {
    const response = await rest("POST", "/api/v1/folders", {
      body: JSON.stringify({ name: "x", visibility: "public" }),
    });
    expectEnvelope(response, 400, "invalid_argument");
    expect(JSON.stringify(response.json.error)).toContain("visibility");
  });

  it("answers an unknown route with 404 and a wrong method with 405 and Allow, in the envelope", async () => {
    expectEnvelope(await rest("GET", "/api/v1/nothing-here"), 404, "not_found");
    const wrong = await rest("DELETE", "/api/v1/projects");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("GET");
    expect(wrong.json.error.requestId).toBe(wrong.headers.get("x-request-id"));
  });

  it("serves the OpenAPI document and the docs page", async () => {
    const document = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<string, { post: { responses: object } }>;
    };
    expect(document.openapi).toMatch(/^3\.1/);
    // Paths below the server URL, relative to the document's own.
    expect(document.servers).toEqual([{ url: "/api/v1" }]);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/folders", "/projects"]));
    expect(document.paths["/folders"]?.post.responses).toHaveProperty("201");
    const docs = await fetch(`${server.baseUrl}/api/v1/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
  });

  it("creates a folder from the request example the document gives the docs page's try-it", async () => {
    const document = (await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, { example?: unknown }> } } }>;
    };
    const example = document.paths["/folders"]?.post?.requestBody?.content["application/json"]?.example;
    expect(example).toBeDefined();
    const response = await rest("POST", "/api/v1/folders", { body: JSON.stringify(example) });
    expect(response.status, JSON.stringify(response.json)).toBe(201);
    expect(response.json.folder).toMatchObject(example as object);
  });
});

describe("GET /favicon.ico", () => {
  // Browsers ask for it on pages without an icon of their own: the API's JSON, /healthz.
  const webApp = findWebAppDir();

  it.runIf(webApp !== undefined)("is the web app's icon, cached and revalidated", async () => {
    const icon = await readFile(join(webApp ?? "", "favicon.svg"));
    const response = await fetch(`${server.baseUrl}/favicon.ico`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(Buffer.from(await response.arrayBuffer())).toEqual(icon);
    const etag = response.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await fetch(`${server.baseUrl}/favicon.ico`, { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
    const head = await fetch(`${server.baseUrl}/favicon.ico`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/svg+xml");
  });

  it.runIf(webApp === undefined)("is no content without the web app (not an error)", async () => {
    const response = await fetch(`${server.baseUrl}/favicon.ico`);
    expect(response.status).toBe(204);
  });
});
