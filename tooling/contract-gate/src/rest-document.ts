import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createFolioOpenApiDocument } from "@folio/api-document";
import type { OpenApiDocument } from "@folio/openapi";

/** The protobuf package of the published API: its services are the REST surface. */
export const API_PACKAGE = "folio.v1";

/**
 * The OpenAPI document of the REST surface that the services of `image` (a `buf build` image,
 * binary, with source info for the descriptions) would serve: the server's own document builder
 * (@folio/api-document) run on those descriptors, in the server's default (development) auth mode.
 */
export function restDocumentOf(image: Uint8Array): OpenApiDocument {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, image));
  const services = [...registry.files]
    .filter((file) => file.proto.package === API_PACKAGE)
    .flatMap((file) => file.services);
  return createFolioOpenApiDocument({ mode: "development" }, { services, comments: registry });
}
