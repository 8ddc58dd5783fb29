import { createClient } from "@connectrpc/connect";
import { ServerReflection } from "@folio/grpc-reflection";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe("gRPC server reflection", () => {
  it("lists the Folio services and gRPC health without credentials, so grpcurl and buf curl need no proto files", async () => {
    const reflection = createClient(ServerReflection, server.transport("grpc"));
    async function* requests() {
      yield { messageRequest: { case: "listServices" as const, value: "" } };
      yield { messageRequest: { case: "fileContainingSymbol" as const, value: "folio.v1.FolderService" } };
    }
    const responses = [];
    for await (const response of reflection.serverReflectionInfo(requests())) responses.push(response);

    const [list, file] = responses;
    expect(list?.messageResponse.case).toBe("listServicesResponse");
    const names =
      list?.messageResponse.case === "listServicesResponse"
        ? list.messageResponse.value.service.map((s) => s.name)
        : [];
    expect(names).toEqual(
      expect.arrayContaining(["folio.v1.FolderService", "folio.v1.ProjectService", "grpc.health.v1.Health"]),
    );
    expect(file?.messageResponse.case).toBe("fileDescriptorResponse");
  });
});
