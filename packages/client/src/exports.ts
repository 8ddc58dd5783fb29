export { Code, ConnectError } from "@connectrpc/connect";
export type { TokenSource } from "./auth.js";
export type {
  CallOptions,
  CreateFolderInit,
  FolioClient,
  FolioClientOptions,
  ProjectFilters,
  ProjectPage,
  Protocol,
} from "./client.js";
export { type FieldViolation, FolioError } from "./errors.js";
export type { components as RestSchemas, paths as RestPaths } from "./gen/openapi.js";
export { createRestClient, type FolioRestClient } from "./rest.js";
export { NO_RETRIES, type RetryOptions, retryDelay } from "./retry.js";
export { folioInterceptors } from "./rpc.js";
