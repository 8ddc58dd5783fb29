import type { DescFile, DescService, FileRegistry, Registry } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { createDescriptorIndex, type DescriptorIndex } from "./descriptor-index.js";
import {
  file_grpc_reflection_v1_reflection,
  ServerReflection as ServerReflectionV1,
} from "./gen/grpc/reflection/v1/reflection_pb.js";
import {
  file_grpc_reflection_v1alpha_reflection,
  ServerReflection as ServerReflectionV1alpha,
} from "./gen/grpc/reflection/v1alpha/reflection_pb.js";

/**
 * The services registerServerReflection() adds (v1 and v1alpha): for a server that must tell them
 * apart, e.g. to let them through without authentication.
 */
export const reflectionServices: readonly DescService[] = [ServerReflectionV1, ServerReflectionV1alpha];

/**
 * Options for registerServerReflection().
 */
export interface ServerReflectionOptions {
  /**
   * The services to answer list_services with. The reflection services are
   * always added.
   *
   * By default, every service registered with the router. The router is read
   * when a request arrives, so services registered after reflection are
   * included too.
   */
  readonly services?: readonly DescService[];
  /**
   * More descriptors to answer file and symbol requests from.
   *
   * The files declaring the listed services, and every file they import, are
   * always served. Add descriptors here to serve other files too, for example
   * a file that only declares extensions, which no service file imports.
   */
  readonly registry?: Registry | FileRegistry | readonly DescFile[];
}

/**
 * Register the gRPC server reflection service, in both versions
 * grpc.reflection.v1 and grpc.reflection.v1alpha, so that tools such as
 * grpcurl and `buf curl` can list the router's services and download their
 * schema, without a copy of the proto files.
 *
 * Answers are built from the descriptors of the registered services: files
 * are served as google.protobuf.FileDescriptorProto, with their transitive
 * dependencies, like grpc-go does. See
 * https://github.com/grpc/grpc/blob/master/doc/server-reflection.md
 *
 * ```ts
 * connectNodeAdapter({
 *   routes(router) {
 *     router.service(ElizaService, elizaImpl);
 *     registerServerReflection(router);
 *   },
 * });
 * ```
 */
export function registerServerReflection(
  router: ConnectRouter,
  options: ServerReflectionOptions = {},
): ConnectRouter {
  const reflector = createReflector(router, options);
  return router
    .service(ServerReflectionV1, {
      async *serverReflectionInfo(requests) {
        const answer = reflector.openStream();
        for await (const request of requests) {
          yield {
            validHost: request.host,
            originalRequest: request,
            messageResponse: answer(request.messageRequest),
          };
        }
      },
    })
    .service(ServerReflectionV1alpha, {
      async *serverReflectionInfo(requests) {
        const answer = reflector.openStream();
        for await (const request of requests) {
          yield {
            validHost: request.host,
            originalRequest: request,
            messageResponse: answer(request.messageRequest),
          };
        }
      },
    });
}

/**
 * A request of ServerReflectionInfo, as the oneof message_request, in a shape
 * both protocol versions share.
 */
type MessageRequest =
  | {
      case: "fileByFilename" | "fileContainingSymbol" | "allExtensionNumbersOfType" | "listServices";
      value: string;
    }
  | {
      case: "fileContainingExtension";
      value: { containingType: string; extensionNumber: number };
    }
  | { case: undefined; value?: undefined };

/**
 * A response of ServerReflectionInfo, as the oneof message_response, in a
 * shape both protocol versions share.
 */
type MessageResponse =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

interface Reflector {
  /**
   * Start answering the requests of one stream. The answer to a file request
   * leaves out the dependencies already sent on the same stream, like
   * grpc-go does: clients cache them.
   */
  openStream(): (request: MessageRequest) => MessageResponse;
}

function createReflector(router: ConnectRouter, options: ServerReflectionOptions): Reflector {
  const reflectionServices: DescService[] = [ServerReflectionV1, ServerReflectionV1alpha];
  let cache: { services: DescService[]; serviceNames: string[]; index: DescriptorIndex } | undefined;

  // Services are read on each request rather than at registration: the
  // router is usually still being filled when reflection is registered.
  function listedServices(): DescService[] {
    const registered = options.services ?? router.handlers.map((handler) => handler.service);
    return [...registered, ...reflectionServices];
  }

  function current() {
    const services = listedServices();
    const unchanged =
      cache !== undefined &&
      cache.services.length === services.length &&
      cache.services.every((service, i) => service === services[i]);
    if (!cache || !unchanged) {
      const files = [
        file_grpc_reflection_v1_reflection,
        file_grpc_reflection_v1alpha_reflection,
        ...services.map((service) => service.file),
        ...filesOf(options.registry),
      ];
      cache = {
        services,
        serviceNames: Array.from(new Set(services.map((service) => service.typeName))).sort(),
        index: createDescriptorIndex(files),
      };
    }
    return cache;
  }

  return {
    openStream() {
      const sent = new Set<string>();
      return (request) => {
        const { serviceNames, index } = current();
        switch (request.case) {
          case "listServices":
            return {
              case: "listServicesResponse",
              value: { service: serviceNames.map((name) => ({ name })) },
            };
          case "fileByFilename": {
            const file = index.getFile(request.value);
            if (!file) {
              return notFound(`file "${request.value}" not found`);
            }
            return fileDescriptorResponse(index.encodeWithDependencies(file, sent));
          }
          case "fileContainingSymbol": {
            const file = index.getFileContainingSymbol(request.value);
            if (!file) {
              return notFound(`symbol "${request.value}" not found`);
            }
            return fileDescriptorResponse(index.encodeWithDependencies(file, sent));
          }
          case "fileContainingExtension": {
            const { containingType, extensionNumber } = request.value;
            const extension = index.getExtension(containingType, extensionNumber);
            if (!extension) {
              return notFound(`extension ${extensionNumber} of "${containingType}" not found`);
            }
            return fileDescriptorResponse(index.encodeWithDependencies(extension.file, sent));
          }
          case "allExtensionNumbersOfType": {
            const numbers = index.getExtensionNumbers(request.value);
            if (!numbers) {
              return notFound(`message "${request.value}" not found`);
            }
            return {
              case: "allExtensionNumbersResponse",
              value: { baseTypeName: request.value, extensionNumber: numbers },
            };
          }
          case undefined:
            // grpc-go ends the stream in this case too.
            throw new ConnectError("message_request is not set", Code.InvalidArgument);
        }
      };
    },
  };
}

function filesOf(registry: ServerReflectionOptions["registry"]): DescFile[] {
  if (registry === undefined) {
    return [];
  }
  if ("kind" in registry) {
    if ("files" in registry) {
      return Array.from(registry.files);
    }
    return Array.from(registry, (type) => type.file);
  }
  return [...registry];
}

function fileDescriptorResponse(fileDescriptorProto: Uint8Array[]): MessageResponse {
  return { case: "fileDescriptorResponse", value: { fileDescriptorProto } };
}

// Every lookup failure is NOT_FOUND, as in grpc-go, whose code the error
// response carries as a plain number.
function notFound(errorMessage: string): MessageResponse {
  return { case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage } };
}
