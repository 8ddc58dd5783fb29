export { Code, ConnectError } from "@connectrpc/connect";
export type { TokenSource } from "./auth.js";
export type { FolioClientOptions, ServiceClientOptions } from "./client.js";
export type {
  CallOptions,
  MethodCall,
  PagedCall,
  PagedMethods,
  PageItem,
  Protocol,
  ServiceClient,
  UnaryCall,
  UnaryMethods,
} from "./client-types.js";
export { type FieldViolation, FolioError } from "./errors.js";
export type { CreateFolderInit, FolioClient, ProjectFilters, ProjectPage } from "./folio-calls.js";
export type { components as RestSchemas, paths as RestPaths } from "./gen/openapi.js";
export { createRestClient, type FolioRestClient } from "./rest.js";
export { NO_RETRIES, type RetryOptions, retryDelay } from "./retry.js";
export { folioInterceptors } from "./rpc.js";
export { type FolioService, folioServices } from "./services.js";
