/** The Folio API's document, built as the server builds it: the fixture of these tests. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createFileRegistry, type DescService, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { documentedErrors, FolderService, ProjectService, requiredScope, successStatus } from "@folio/proto";
import { createOpenApiDocument, type OpenApiDocument, uuidForIdFields } from "../src/index.js";

export const folioServices: readonly DescService[] = [FolderService, ProjectService];

/** The buf image of the Folio API, with source info (its comments). */
export function folioImage() {
  const bytes = readFileSync(createRequire(import.meta.url).resolve("@folio/proto/folio.binpb"));
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes));
}

export function folioDocument(): OpenApiDocument {
  return createOpenApiDocument({
    services: folioServices,
    info: {
      title: "Folio API",
      version: "v1",
      description: "Folders and projects of an organisation's workspace.",
    },
    comments: folioImage(),
    security: {
      requiredScope,
      description: "An OAuth 2.0 access token (a JWT) from the organisation's identity provider.",
    },
    successStatus,
    errorResponses: documentedErrors,
    stringFormat: uuidForIdFields,
    pageLinks: true,
  });
}
