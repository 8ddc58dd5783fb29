import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { ServerReflection } from "@folio/grpc-reflection";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, startTestServer, type TestServer } from "./harness.js";

/** The services and the file of FolderService, as one reflection stream answers them. */
async function reflect(transport: Transport, options: { headers?: Record<string, string> } = {}) {
  const reflection = createClient(ServerReflection, transport);
  async function* requests() {
    yield { messageRequest: { case: "listServices" as const, value: "" } };
    yield { messageRequest: { case: "fileContainingSymbol" as const, value: "folio.v1.FolderService" } };
  }
  const responses = [];
  for await (const response of reflection.serverReflectionInfo(requests(), options)) responses.push(response);
  const [list, file] = responses;
  const services =
    list?.messageResponse.case === "listServicesResponse"
      ? list.messageResponse.value.service.map((s) => s.name)
      : [];
  return { services, file: file?.messageResponse.case };
}

const LISTED = ["folio.v1.FolderService", "folio.v1.ProjectService", "grpc.health.v1.Health"];

describe("gRPC server reflection with a JWKS (as in production)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("lists the Folio services and gRPC health to a caller with any valid token, whatever its scopes", async () => {
    const token = await server.issuer.sign({ sub: randomUUID(), org_id: randomUUID(), scope: "" });
    const { services, file } = await reflect(server.transport("grpc"), bearer(token));
    expect(services).toEqual(expect.arrayContaining(LISTED));
    expect(file).toBe("fileDescriptorResponse");
  });

  it("is unauthenticated without a token: its answers are large and cheap to ask for", async () => {
    const refused = await reflect(server.transport("grpc")).catch((error: unknown) => error);
    expect(ConnectError.from(refused).code).toBe(Code.Unauthenticated);
  });
});

describe("gRPC server reflection in development mode", () => {
  let server: TestServer;
  beforeAll(async () => {
    // No JWKS: development mode, as a server started on a developer's machine.
    server = await startTestServer({ AUTH_JWKS_FILE: "" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("lists the Folio services and gRPC health without credentials, so grpcurl and buf curl need no proto files", async () => {
    expect(server.app.developmentIssuer).toBeDefined();
    const { services, file } = await reflect(server.transport("grpc"));
    expect(services).toEqual(expect.arrayContaining(LISTED));
    expect(file).toBe("fileDescriptorResponse");
  });
});
