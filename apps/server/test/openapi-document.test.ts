import { hasOption } from "@bufbuild/protobuf";
import { apiScopes, createFolioOpenApiDocument } from "@folio/api-document";
import { codeFromString, codeToHttpStatus, http } from "@folio/googleapis";
import { collectHttpRoutes, type HttpRoute, routeErrorRules } from "@folio/http-transcoder";
import {
  documentOperations,
  type OpenApiDocument,
  type OperationObject,
  type ResponseObject,
  type SchemaObject,
} from "@folio/openapi";
import { effectiveErrors, requiredScope } from "@folio/proto";
import { compileErrors, validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/env.js";
import { services } from "../src/services/api.js";

// The document as development mode builds it; the served one is checked by openapi-lint.test.ts
// and typed-client.test.ts.
const document = createFolioOpenApiDocument(loadConfig({}).auth);

/** Follows a `$ref`, and takes the non-null branch of `anyOf: [X, {type: "null"}]`. */
function resolve(schema: SchemaObject | undefined, doc: OpenApiDocument = document): SchemaObject {
  if (schema === undefined) throw new Error("no schema");
  if (schema.anyOf !== undefined) {
    const nonNull = schema.anyOf.filter((s) => s.type !== "null");
    expect(nonNull).toHaveLength(1);
    return resolve(nonNull[0], doc);
  }
  if (schema.$ref !== undefined) {
    const name = schema.$ref.replace("#/components/schemas/", "");
    const target = doc.components.schemas[name];
    if (target === undefined) throw new Error(`dangling ${schema.$ref}`);
    return target;
  }
  return schema;
}

function operation(path: string, method: "get" | "post"): OperationObject {
  const op = document.paths[path]?.[method];
  if (op === undefined) throw new Error(`no ${method} ${path}`);
  return op;
}

/** The operation that documents a route the transcoder serves. */
function operationOf(route: HttpRoute): OperationObject {
  const path = route.openApiPath.replace(/^\/api\/v1/, "");
  const method = route.httpMethod.toLowerCase();
  const found = documentOperations(document).find((o) => o.path === path && o.method === method);
  if (found === undefined) throw new Error(`no ${method} ${path}`);
  return found.operation;
}

function jsonSchemaOf(response: ResponseObject | { $ref: string } | undefined): SchemaObject {
  const schema = (response as ResponseObject | undefined)?.content?.["application/json"]?.schema;
  if (schema === undefined) throw new Error("no application/json schema");
  return schema;
}

const FOLDER_FIELDS = [
  "id",
  "orgId",
  "name",
  "parentId",
  "color",
  "visibility",
  "createdByUserId",
  "createdAt",
];
const PROJECT_FIELDS = [
  "id",
  "orgId",
  "name",
  "street",
  "houseNumber",
  "postalCode",
  "city",
  "country",
  "createdAt",
];

describe("the Folio API's OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
    expect(document.openapi).toBe("3.1.1");
  });

  it("documents the REST routes the transcoder serves, one for each method with an HTTP rule, and no other", () => {
    const documented = documentOperations(document).map(
      ({ path, method }) => `${method.toUpperCase()} ${path}`,
    );
    // The common prefix is said once, as the server's URL.
    const routes = collectHttpRoutes(services);
    const served = routes.map(
      (route) => `${route.httpMethod} ${route.openApiPath.replace(/^\/api\/v1/, "")}`,
    );
    // The document groups a path's operations; the transcoder lists routes by method.
    expect([...documented].sort()).toEqual([...served].sort());
    expect(served).toEqual(expect.arrayContaining(["POST /folders", "GET /projects"]));
    const bound = services.flatMap((service) => service.methods).filter((method) => hasOption(method, http));
    expect(new Set(routes.map((route) => route.method))).toEqual(new Set(bound));
    expect(document.servers).toEqual([{ url: "/api/v1" }]);
  });

  describe("POST /api/v1/folders", () => {
    const op = operation("/folders", "post");

    it("answers 201 with {folder: Folder}, the folder never null", () => {
      expect(Object.keys(op.responses).filter((status) => status.startsWith("2"))).toEqual(["201"]);
      const body = resolve(jsonSchemaOf(op.responses["201"]));
      expect(Object.keys(body.properties ?? {})).toEqual(["folder"]);
      expect(body.required).toEqual(["folder"]);
      expect(body.properties?.folder).toMatchObject({ $ref: "#/components/schemas/Folder" });
    });

    it("declares the Idempotency-Key request header and offers a valid example body", () => {
      expect(op.parameters).toEqual([
        expect.objectContaining({
          name: "Idempotency-Key",
          in: "header",
          schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
        }),
        expect.objectContaining({ name: "Accept-Encoding", in: "header" }),
        expect.objectContaining({
          name: "Content-Encoding",
          in: "header",
          schema: { type: "string", enum: ["br", "zstd", "gzip"] },
        }),
      ]);
      expect(op.requestBody?.content["application/json"]?.example).toEqual({
        name: "Invoices 2026",
        color: "#1e90ff",
      });
    });

    it("takes a JSON body with name (required), parentId and color", () => {
      expect(op.requestBody?.required).toBe(true);
      const body = resolve(op.requestBody?.content["application/json"]?.schema);
      expect(Object.keys(body.properties ?? {})).toEqual(["name", "parentId", "color", "requestId"]);
      expect(body.required).toEqual(["name"]);
      // The rules decided for what the spec leaves open reach the document from the proto.
      expect(body.properties?.name).toMatchObject({ type: "string" });
      expect(body.properties?.name?.description).toContain("1 to 255 characters");
      expect(body.properties?.name?.description).toContain("compared case-insensitively");
      // The JSON mapping reads null as "not set": optional fields take it.
      expect(body.properties?.parentId).toMatchObject({ type: ["string", "null"], format: "uuid" });
      expect(body.properties?.color).toMatchObject({ type: ["string", "null"] });
      expect(body.properties?.color?.description).toContain("`#rgb` or `#rrggbb`");
      expect(body.properties?.requestId?.description).toContain("Idempotency-Key");
      // AIP-155's request_id is the client's key, not necessarily a UUID.
      expect(body.properties?.requestId?.format).toBeUndefined();
    });

    it("carries the proto's buf.validate rules as constraints, and the CEL rules' messages", () => {
      const body = resolve(op.requestBody?.content["application/json"]?.schema);
      const p = body.properties ?? {};
      expect(p.name).toMatchObject({ type: "string", minLength: 1 });
      expect(p.name?.maxLength).toBeUndefined();
      expect(p.name?.description).toContain(
        'Validation rules:\n- must not be empty\n- must not contain control characters\n- must not contain "/" or "\\"\n- must not be "." or ".."',
      );
      expect(p.parentId).toMatchObject({ type: ["string", "null"], format: "uuid" });
      expect(p.requestId).toMatchObject({ minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7E]+$" });
      // JSON Schema patterns are ECMA-262 (with Unicode semantics): what a client's validator runs.
      const colour = new RegExp(p.color?.pattern as string, "u");
      expect(["#fff", "#1E90FF"].map((c) => colour.test(c))).toEqual([true, true]);
      expect(["red", "#ffff", "1e90ff"].map((c) => colour.test(c))).toEqual([false, false, false]);
    });

    it("requires an OAuth 2.0 token with the scope files:upload", () => {
      expect(op.security).toEqual([{ oauth2: ["files:upload"] }]);
      expect(op.description).toContain("`files:upload`");
    });

    it("documents its own errors over the shared ones, and the ones of any route with a body", () => {
      const errorStatuses = Object.keys(op.responses).filter((status) => Number(status) >= 400);
      expect(errorStatuses).toEqual(expect.arrayContaining(["404", "409", "413", "415"]));
      // Its own not_found replaces the service's (no route matches), which no route of it can give.
      const notFound = op.responses["404"] as ResponseObject;
      expect(notFound.description).not.toContain("No route matches");
      expect(notFound.description).toContain(
        "`not_found`: The parent folder does not exist in the caller's organisation.",
      );
      const conflict = op.responses["409"] as ResponseObject;
      expect(conflict.description).toContain(
        "`already_exists`: The parent already holds a folder of that name",
      );
      expect(conflict.description).toContain(
        "`aborted`: A request with the same idempotency key is still running",
      );
      expect(Object.keys(conflict.content?.["application/json"]?.examples ?? {})).toEqual([
        "already_exists",
        "aborted",
      ]);
      expect(op.description).toContain("Idempotency-Key");
      expect((op.responses["415"] as ResponseObject).description).toContain("Content-Type");
    });
  });

  describe("GET /api/v1/projects", () => {
    const op = operation("/projects", "get");

    it("answers 200 with {projects: Project[]}", () => {
      expect(Object.keys(op.responses).filter((status) => status.startsWith("2"))).toEqual(["200"]);
      const body = resolve(jsonSchemaOf(op.responses["200"]));
      expect(Object.keys(body.properties ?? {})).toEqual(["projects"]);
      expect(body.required).toEqual(["projects"]);
      expect(body.properties?.projects).toMatchObject({
        type: "array",
        items: { $ref: "#/components/schemas/Project" },
      });
    });

    it("sends the next page in a Link header, not in the body", () => {
      const ok = op.responses["200"] as ResponseObject;
      expect(ok.headers?.Link?.description).toContain('rel="next"');
    });

    it("has no request body; paging and filters are query parameters", () => {
      expect(op.requestBody).toBeUndefined();
      expect(op.parameters?.map((p) => [p.name, p.in, p.schema])).toEqual([
        // The constraints are the proto's buf.validate rules (gte, pattern).
        ["pageSize", "query", { type: "integer", format: "int32", minimum: 0 }],
        ["pageToken", "query", { type: "string", pattern: "^[0-9A-Za-z._\\-]*$" }],
        ["namePrefix", "query", { type: "string", pattern: "^[^\\x00]*$" }],
        ["city", "query", { type: "string", pattern: "^[^\\x00]*$" }],
        ["country", "query", { type: "string", pattern: "^[^\\x00]*$" }],
        ["postalCode", "query", { type: "string", pattern: "^[^\\x00]*$" }],
        ["fields", "query", { type: "string" }],
        ["If-None-Match", "header", { type: "string" }],
        ["Accept-Encoding", "header", { type: "string" }],
      ]);
    });

    it("declares the ETag of its answer and the 304 of a matching If-None-Match", () => {
      expect(Object.keys((op.responses["200"] as ResponseObject | undefined)?.headers ?? {})).toEqual(
        expect.arrayContaining(["ETag", "Content-Encoding"]),
      );
      expect((op.responses["304"] as ResponseObject | undefined)?.headers?.ETag).toBeDefined();
    });

    it("requires an OAuth 2.0 token with the scope project:read", () => {
      expect(op.security).toEqual([{ oauth2: ["project:read"] }]);
      expect(op.description).toContain("`project:read`");
    });

    it("documents its own invalid_argument over the shared one, the service's errors, and none of a body", () => {
      const description = (status: string) =>
        (op.responses[status] as ResponseObject | undefined)?.description;
      expect(description("400")).toContain("`invalid_argument`: A query parameter is unknown or invalid");
      expect(description("400")).not.toContain("The request is malformed");
      expect(description("403")).toContain("`permission_denied`: The token lacks the scope project:read.");
      expect(description("404")).toContain("`not_found`: No route matches the request path.");
      expect(description("413")).toBeUndefined();
      expect(description("415")).toBeUndefined();
    });
  });

  describe("the errors of each operation", () => {
    for (const route of collectHttpRoutes(services)) {
      const name = `${route.method.parent.name}.${route.method.name}`;
      const op = () => operationOf(route);
      const statusOf = (code: string) => {
        const known = codeFromString(code);
        if (known === undefined) throw new Error(`${name}: "${code}" is not a code`);
        return String(codeToHttpStatus(known));
      };

      it(`${name}: each error its method can return (its own and its service's), under its status`, () => {
        const errors = effectiveErrors(route.method);
        expect(errors.map((error) => error.code)).toEqual(
          expect.arrayContaining(["unauthenticated", "permission_denied", "resource_exhausted", "internal"]),
        );
        for (const error of errors) {
          const response = op().responses[statusOf(error.code)] as ResponseObject | undefined;
          expect(response?.description, `${error.code} of ${name}`).toContain(
            `- \`${error.code}\`: ${error.condition}`,
          );
        }
      });

      it(`${name}: no error status that neither its method nor its route gives`, () => {
        const possible = new Set([
          ...effectiveErrors(route.method).map((error) => statusOf(error.code)),
          ...routeErrorRules(route).map((rule) => String(rule.httpStatus)),
        ]);
        const documented = Object.keys(op().responses).filter((status) => Number(status) >= 400);
        expect(documented.filter((status) => !possible.has(status))).toEqual([]);
      });
    }
  });

  describe("the Folder schema", () => {
    const folder = document.components.schemas.Folder as SchemaObject;

    it("has exactly the fields of the specification, each always present", () => {
      expect(Object.keys(folder.properties ?? {})).toEqual(FOLDER_FIELDS);
      expect(folder.required).toEqual(FOLDER_FIELDS);
      expect(folder.description).toBe("A folder of an organisation's workspace.");
    });

    it("types identifiers as UUIDs and createdAt as a date-time", () => {
      const p = folder.properties ?? {};
      for (const name of ["id", "orgId", "createdByUserId"])
        expect(p[name]).toMatchObject({ type: "string", format: "uuid" });
      expect(p.parentId).toMatchObject({ type: ["string", "null"], format: "uuid" });
      // Always set by the server: (folio.v1.always_set).
      expect(p.createdAt).toMatchObject({ type: "string", format: "date-time" });
      expect(p.name).toMatchObject({ type: "string" });
      expect(p.color).toMatchObject({ type: ["string", "null"] });
      expect(p.visibility).toMatchObject({ type: "string" });
    });

    it("marks the output-only fields read-only", () => {
      const readOnly = Object.entries(folder.properties ?? {})
        .filter(([, schema]) => schema.readOnly)
        .map(([name]) => name);
      expect(readOnly).toEqual(["id", "orgId", "visibility", "createdByUserId", "createdAt"]);
    });
  });

  describe("the Project schema", () => {
    const project = document.components.schemas.Project as SchemaObject;

    it("has exactly the fields of the specification", () => {
      expect(Object.keys(project.properties ?? {})).toEqual(PROJECT_FIELDS);
      expect(project.required).toEqual(PROJECT_FIELDS);
    });

    it("types identifiers as UUIDs, createdAt as a date-time, and absent address parts as null", () => {
      const p = project.properties ?? {};
      expect(p.id).toMatchObject({ type: "string", format: "uuid", readOnly: true });
      expect(p.orgId).toMatchObject({ type: "string", format: "uuid", readOnly: true });
      expect(p.createdAt).toMatchObject({ type: "string", format: "date-time" });
      for (const name of ["street", "houseNumber", "postalCode", "city", "country"]) {
        expect(p[name]).toMatchObject({ type: ["string", "null"], readOnly: true });
      }
      expect(p.houseNumber?.description).toContain('"12a"');
    });
  });

  it("has an OAuth 2.0 security scheme listing every scope the services declare, with what it allows", () => {
    const scheme = document.components.securitySchemes?.oauth2;
    expect(scheme).toMatchObject({
      type: "oauth2",
      flows: { clientCredentials: { tokenUrl: "/oauth/token" } },
    });
    const listed = (scheme as { flows: { clientCredentials: { scopes: Record<string, string> } } }).flows
      .clientCredentials.scopes;
    expect(listed).toEqual(Object.fromEntries(apiScopes.map((scope) => [scope.name, scope.description])));
    expect(listed).toMatchObject({ "files:upload": expect.any(String), "project:read": expect.any(String) });
    // Each operation's requirement names its method's scope, and the scheme lists it.
    for (const route of collectHttpRoutes(services)) {
      const scope = requiredScope(route.method) ?? "";
      expect(operationOf(route).security).toEqual([{ oauth2: [scope] }]);
      expect(listed[scope]).toBeDefined();
    }
  });

  describe("the security scheme as the deployment configures it", () => {
    const jwks = {
      AUTH_JWKS_URL: "https://issuer.folio.test/.well-known/jwks.json",
      AUTH_ISSUER: "https://issuer.folio.test/",
      AUTH_AUDIENCE: "folio",
    };

    it("is OAuth 2.0 client credentials at AUTH_TOKEN_URL, scopes in the requirements", () => {
      const doc = createFolioOpenApiDocument(
        loadConfig({ ...jwks, AUTH_TOKEN_URL: "https://issuer.folio.test/oauth2/token" }).auth,
      );
      expect(doc.components.securitySchemes?.oauth2).toMatchObject({
        type: "oauth2",
        flows: { clientCredentials: { tokenUrl: "https://issuer.folio.test/oauth2/token" } },
      });
      expect(doc.paths["/folders"]?.post?.security).toEqual([{ oauth2: ["files:upload"] }]);
    });

    it("without a known token endpoint, is a bearer token, the scopes in the descriptions", () => {
      // OAuth 2.0 flows need a token URL, OpenID Connect a discovery document the issuer may not
      // have: a bearer token is what the server can vouch for.
      const doc = createFolioOpenApiDocument(loadConfig(jwks).auth);
      expect(Object.keys(doc.components.securitySchemes ?? {})).toEqual(["bearerAuth"]);
      const scheme = doc.components.securitySchemes?.bearerAuth;
      expect(scheme).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
      for (const scope of apiScopes) {
        expect(scheme?.description).toContain(`- \`${scope.name}\`: ${scope.description}`);
      }
      const create = doc.paths["/folders"]?.post;
      expect(create?.security).toEqual([{ bearerAuth: [] }]);
      expect(create?.description).toContain("Requires a bearer token with the scope `files:upload`.");
      expect(doc.paths["/projects"]?.get?.description).toContain("`project:read`");
    });
  });

  it("uses one error envelope for every error response", () => {
    const operations = documentOperations(document);
    expect(operations.length).toBeGreaterThan(0);
    for (const { operation: op } of operations) {
      const errors = Object.entries(op.responses).filter(([status]) => Number(status) >= 400);
      expect(errors.length, op.operationId).toBeGreaterThan(0);
      for (const [, response] of errors) {
        expect(jsonSchemaOf(response)).toEqual({ $ref: "#/components/schemas/ErrorEnvelope" });
        expect((response as ResponseObject).description).toMatch(/`[a-z_]+`: /);
        expect((response as ResponseObject).headers?.["X-Request-Id"]).toMatchObject({ required: true });
      }
    }

    const envelope = document.components.schemas.ErrorEnvelope as SchemaObject;
    expect(envelope.required).toEqual(["error"]);
    const error = envelope.properties?.error as SchemaObject;
    expect(Object.keys(error.properties ?? {})).toEqual(["code", "message", "requestId", "details"]);
    expect(error.properties?.code?.enum).toEqual(
      expect.arrayContaining(["invalid_argument", "not_found", "internal"]),
    );
  });

  it("describes operations, tags and schemas with the proto comments", () => {
    const create = operation("/folders", "post");
    expect(create.summary).toBe("Create folder");
    expect(create.operationId).toBe("FolderService_CreateFolder");
    expect(create.tags).toEqual(["FolderService"]);
    expect(create.description).toContain("Creates a folder, at the top level or under a parent folder");
    expect(operation("/projects", "get").summary).toBe("List projects");
    expect(document.tags).toContainEqual({
      name: "FolderService",
      description: "Manages the folders of an organisation's workspace.",
    });
  });
});
