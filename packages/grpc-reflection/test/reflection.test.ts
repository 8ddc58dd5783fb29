import { createServer, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { equals, fromBinary, getExtension } from "@bufbuild/protobuf";
import {
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  file_google_protobuf_struct,
} from "@bufbuild/protobuf/wkt";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  createClient,
  createRouterTransport,
  type Transport,
} from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1 from "../src/gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../src/gen/grpc/reflection/v1alpha/reflection_pb.js";
import { registerServerReflection, type ServerReflectionOptions } from "../src/index.js";
import {
  EchoService,
  file_reflectiontest_v1_echo,
  UnregisteredService,
} from "./gen/reflectiontest/v1/echo_pb.js";
import { audited } from "./gen/reflectiontest/v1/options_pb.js";

type Version = "v1" | "v1alpha";

/** A request of ServerReflectionInfo, valid in both versions. */
interface ReflectionRequest {
  host?: string;
  messageRequest?:
    | {
        case: "fileByFilename" | "fileContainingSymbol" | "allExtensionNumbersOfType" | "listServices";
        value: string;
      }
    | {
        case: "fileContainingExtension";
        value: { containingType: string; extensionNumber: number };
      };
}

type ReflectionResponse = v1.ServerReflectionResponse | v1alpha.ServerReflectionResponse;

const versions: Version[] = ["v1", "v1alpha"];

function routes(router: ConnectRouter) {
  router.service(EchoService, {
    echo: (request) => ({ text: request.text }),
  });
  registerServerReflection(router);
}

/**
 * Send all requests on one ServerReflectionInfo stream, and collect the
 * responses.
 */
async function reflect(
  transport: Transport,
  version: Version,
  requests: ReflectionRequest[],
): Promise<ReflectionResponse[]> {
  async function* send() {
    yield* requests;
  }
  const responses: ReflectionResponse[] = [];
  const stream =
    version === "v1"
      ? createClient(v1.ServerReflection, transport).serverReflectionInfo(send())
      : createClient(v1alpha.ServerReflection, transport).serverReflectionInfo(send());
  for await (const response of stream) {
    responses.push(response);
  }
  return responses;
}

/** The decoded files of a file_descriptor_response; fails on any other response. */
function files(response: ReflectionResponse | undefined): FileDescriptorProto[] {
  if (response?.messageResponse.case !== "fileDescriptorResponse") {
    expect.fail(`expected a file_descriptor_response, got ${response?.messageResponse.case}`);
  }
  return response.messageResponse.value.fileDescriptorProto.map((bytes) =>
    fromBinary(FileDescriptorProtoSchema, bytes),
  );
}

function fileNames(response: ReflectionResponse | undefined): string[] {
  return files(response).map((file) => file.name);
}

/** The error_response; fails on any other response. */
function error(response: ReflectionResponse | undefined) {
  if (response?.messageResponse.case !== "errorResponse") {
    expect.fail(`expected an error_response, got ${response?.messageResponse.case}`);
  }
  return response.messageResponse.value;
}

const symbol = (name: string): ReflectionRequest => ({
  messageRequest: { case: "fileContainingSymbol", value: name },
});

describe("gRPC over a real HTTP/2 server (h2c)", () => {
  let server: Http2Server;
  let sessionManager: Http2SessionManager;
  let transport: Transport;

  beforeAll(async () => {
    server = createServer(connectNodeAdapter({ routes }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    sessionManager = new Http2SessionManager(baseUrl);
    // connect-node's gRPC transport always speaks HTTP/2, here without TLS (h2c).
    transport = createGrpcTransport({ baseUrl, sessionManager });
  });

  afterAll(async () => {
    sessionManager.abort();
    await new Promise((resolve) => server.close(resolve));
  });

  describe.each(versions)("grpc.reflection.%s", (version) => {
    it("answers several requests on one stream", async () => {
      const responses = await reflect(transport, version, [
        { host: "localhost", messageRequest: { case: "listServices", value: "" } },
        symbol("reflectiontest.v1.EchoService"),
        symbol("reflectiontest.v1.NoSuchService"),
        symbol("reflectiontest.v1.EchoRequest.Sender"),
      ]);
      expect(responses).toHaveLength(4);
      const [list, echo, unknown, sender] = responses;

      expect(list?.validHost).toBe("localhost");
      expect(list?.originalRequest?.messageRequest.case).toBe("listServices");
      expect(list?.messageResponse).toMatchObject({
        case: "listServicesResponse",
        value: {
          service: [
            { name: "grpc.reflection.v1.ServerReflection" },
            { name: "grpc.reflection.v1alpha.ServerReflection" },
            { name: "reflectiontest.v1.EchoService" },
          ],
        },
      });

      // The file, then its transitive dependencies, breadth-first.
      expect(fileNames(echo)).toStrictEqual([
        "reflectiontest/v1/echo.proto",
        "google/protobuf/timestamp.proto",
        "reflectiontest/v1/options.proto",
        "google/protobuf/descriptor.proto",
      ]);
      expect(echo?.originalRequest?.messageRequest).toMatchObject({
        case: "fileContainingSymbol",
        value: "reflectiontest.v1.EchoService",
      });

      // NOT_FOUND, as grpc-go answers; the code travels as a plain number.
      expect(error(unknown).errorCode).toBe(5);

      // Dependencies already sent on this stream are not sent again.
      expect(fileNames(sender)).toStrictEqual(["reflectiontest/v1/echo.proto"]);
    });

    it("serves the descriptors of the generated code, custom options included", async () => {
      const [response] = await reflect(transport, version, [symbol("reflectiontest.v1.EchoService.Echo")]);
      const echo = files(response).find((file) => file.name === "reflectiontest/v1/echo.proto");
      if (!echo) expect.fail("reflectiontest/v1/echo.proto was not returned");
      expect(equals(FileDescriptorProtoSchema, echo, file_reflectiontest_v1_echo.proto)).toBe(true);
      expect(echo.dependency).toStrictEqual([
        "google/protobuf/timestamp.proto",
        "reflectiontest/v1/options.proto",
      ]);
      const method = echo.service.find((s) => s.name === "EchoService")?.method[0];
      expect(method?.name).toBe("Echo");
      expect(method?.options && getExtension(method.options, audited)).toBe(true);
    });
  });

  it("leaves the service still served", async () => {
    const client = createClient(EchoService, transport);
    await expect(client.echo({ text: "hello" })).resolves.toMatchObject({ text: "hello" });
  });
});

// Lookups in detail, through an in-memory transport.
describe.each(versions)("grpc.reflection.%s", (version) => {
  const transport = createRouterTransport(routes);

  describe("file_containing_symbol", () => {
    it.each([
      ["a service", "reflectiontest.v1.EchoService", "reflectiontest/v1/echo.proto"],
      ["a method", "reflectiontest.v1.EchoService.Echo", "reflectiontest/v1/echo.proto"],
      ["a service not registered", "reflectiontest.v1.UnregisteredService", "reflectiontest/v1/echo.proto"],
      ["a message", "reflectiontest.v1.EchoRequest", "reflectiontest/v1/echo.proto"],
      ["a nested message", "reflectiontest.v1.EchoRequest.Sender", "reflectiontest/v1/echo.proto"],
      ["a nested enum", "reflectiontest.v1.EchoRequest.Tone", "reflectiontest/v1/echo.proto"],
      [
        "an enum value, scoped beside its enum",
        "reflectiontest.v1.EchoRequest.TONE_LOUD",
        "reflectiontest/v1/echo.proto",
      ],
      ["a field", "reflectiontest.v1.EchoRequest.text", "reflectiontest/v1/echo.proto"],
      ["a oneof", "reflectiontest.v1.EchoRequest.origin", "reflectiontest/v1/echo.proto"],
      ["a name with a leading dot", ".reflectiontest.v1.EchoResponse", "reflectiontest/v1/echo.proto"],
      ["an extension", "reflectiontest.v1.audited", "reflectiontest/v1/options.proto"],
      ["a message of a dependency", "google.protobuf.Timestamp", "google/protobuf/timestamp.proto"],
      [
        "the reflection service",
        "grpc.reflection.v1.ServerReflection",
        "grpc/reflection/v1/reflection.proto",
      ],
    ])("finds %s", async (_, name, file) => {
      const [response] = await reflect(transport, version, [symbol(name)]);
      expect(fileNames(response)[0]).toBe(file);
    });

    it.each([
      ["an unknown symbol", "reflectiontest.v1.Nope"],
      ["an enum value scoped inside its enum", "reflectiontest.v1.EchoRequest.Tone.TONE_LOUD"],
      ["an empty name", ""],
    ])("returns NOT_FOUND for %s", async (_, name) => {
      const [response] = await reflect(transport, version, [symbol(name)]);
      expect(error(response).errorCode).toBe(Code.NotFound);
    });
  });

  describe("file_by_filename", () => {
    it("returns the file and its dependencies", async () => {
      const [response] = await reflect(transport, version, [
        { messageRequest: { case: "fileByFilename", value: "reflectiontest/v1/options.proto" } },
      ]);
      expect(fileNames(response)).toStrictEqual([
        "reflectiontest/v1/options.proto",
        "google/protobuf/descriptor.proto",
      ]);
    });

    it("returns NOT_FOUND for an unknown file", async () => {
      const [response] = await reflect(transport, version, [
        { messageRequest: { case: "fileByFilename", value: "reflectiontest/v1/nope.proto" } },
      ]);
      expect(error(response)).toMatchObject({ errorCode: Code.NotFound });
    });
  });

  describe("file_containing_extension", () => {
    const extension = (containingType: string, extensionNumber: number): ReflectionRequest => ({
      messageRequest: { case: "fileContainingExtension", value: { containingType, extensionNumber } },
    });

    it("returns the file declaring the extension", async () => {
      const [response] = await reflect(transport, version, [
        extension("google.protobuf.MethodOptions", 50001),
      ]);
      expect(fileNames(response)[0]).toBe("reflectiontest/v1/options.proto");
    });

    it("returns NOT_FOUND for an unknown extension number", async () => {
      const [response] = await reflect(transport, version, [
        extension("google.protobuf.MethodOptions", 50002),
      ]);
      expect(error(response)).toMatchObject({ errorCode: Code.NotFound });
    });
  });

  describe("all_extension_numbers_of_type", () => {
    const numbers = (name: string): ReflectionRequest => ({
      messageRequest: { case: "allExtensionNumbersOfType", value: name },
    });

    it("lists the extension numbers of a message", async () => {
      const [response] = await reflect(transport, version, [numbers("google.protobuf.MethodOptions")]);
      expect(response?.messageResponse).toMatchObject({
        case: "allExtensionNumbersResponse",
        value: { baseTypeName: "google.protobuf.MethodOptions", extensionNumber: [50001] },
      });
    });

    it("returns no numbers for a message without extensions", async () => {
      const [response] = await reflect(transport, version, [numbers("reflectiontest.v1.EchoRequest")]);
      expect(response?.messageResponse).toMatchObject({
        case: "allExtensionNumbersResponse",
        value: { extensionNumber: [] },
      });
    });

    it("returns NOT_FOUND for an unknown message", async () => {
      const [response] = await reflect(transport, version, [numbers("reflectiontest.v1.Nope")]);
      expect(error(response)).toMatchObject({ errorCode: Code.NotFound });
    });
  });

  it("ends the stream with INVALID_ARGUMENT when no request is set", async () => {
    const call = reflect(transport, version, [{}]);
    await expect(call).rejects.toSatisfy((e) => e instanceof ConnectError && e.code === Code.InvalidArgument);
  });

  describe("options", () => {
    function transportWith(options: ServerReflectionOptions) {
      return createRouterTransport((router) => {
        router.service(EchoService, {});
        router.service(UnregisteredService, {});
        registerServerReflection(router, options);
      });
    }

    it("lists every registered service by default", async () => {
      const [response] = await reflect(transportWith({}), version, [
        { messageRequest: { case: "listServices", value: "" } },
      ]);
      expect(response?.messageResponse).toMatchObject({
        case: "listServicesResponse",
        value: {
          service: [
            { name: "grpc.reflection.v1.ServerReflection" },
            { name: "grpc.reflection.v1alpha.ServerReflection" },
            { name: "reflectiontest.v1.EchoService" },
            { name: "reflectiontest.v1.UnregisteredService" },
          ],
        },
      });
    });

    it("lists only the given services, and reflection", async () => {
      const [response] = await reflect(transportWith({ services: [EchoService] }), version, [
        { messageRequest: { case: "listServices", value: "" } },
      ]);
      expect(response?.messageResponse).toMatchObject({
        case: "listServicesResponse",
        value: {
          service: [
            { name: "grpc.reflection.v1.ServerReflection" },
            { name: "grpc.reflection.v1alpha.ServerReflection" },
            { name: "reflectiontest.v1.EchoService" },
          ],
        },
      });
    });

    it("serves the files of the given registry too", async () => {
      const request: ReflectionRequest = {
        messageRequest: { case: "fileByFilename", value: "google/protobuf/struct.proto" },
      };
      const [without] = await reflect(transportWith({}), version, [request]);
      expect(error(without)).toMatchObject({ errorCode: Code.NotFound });
      const [withFiles] = await reflect(transportWith({ registry: [file_google_protobuf_struct] }), version, [
        request,
      ]);
      expect(fileNames(withFiles)).toStrictEqual(["google/protobuf/struct.proto"]);
    });
  });
});
