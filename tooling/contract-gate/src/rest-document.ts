import { createFileRegistry, type DescMethod, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createOpenApiDocument, type OpenApiDocument, uuidForIdFields } from "@folio/openapi";
import {
  alwaysSet,
  declaredScopes,
  documentedErrors,
  requestHeaders,
  requiredScope,
  successStatus,
} from "@folio/proto";

/** The protobuf package of the published API: its services are the REST surface. */
export const API_PACKAGE = "folio.v1";

/** The token endpoint the document names: the server's development one (its default). */
const TOKEN_URL = "/oauth/token";

/**
 * The OpenAPI document of the REST surface that the services of `image` (a `buf build` image,
 * binary, with source info for the descriptions) would serve, built by @folio/openapi with the
 * facts the server reads from the proto, as @folio/api-document builds
 * the document it serves at /openapi.json. Left out: what the server adds from its configuration
 * rather than from the proto (the token endpoint, response headers, examples, the info's text).
 * A test checks that the two documents describe the same surface.
 */
export function restDocumentOf(image: Uint8Array): OpenApiDocument {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, image));
  const services = [...registry.files]
    .filter((file) => file.proto.package === API_PACKAGE)
    .flatMap((file) => file.services);
  return createOpenApiDocument({
    services,
    info: { title: "Folio API", version: "v1" },
    basePath: "/api/v1",
    comments: registry,
    // OAuth 2.0 as the server documents it by default (the development token endpoint), so that
    // each operation names its scope in its security requirement.
    security: {
      requiredScope,
      scheme: { type: "oauth2", flows: { clientCredentials: { tokenUrl: TOKEN_URL } } },
      scopes: Object.fromEntries(
        services
          .flatMap((service) => declaredScopes(service))
          .map((scope) => [scope.name, scope.description]),
      ),
    },
    successStatus,
    errorResponses: documentedErrors,
    stringFormat: uuidForIdFields,
    alwaysSetInResponses: alwaysSet,
    pageLinks: true,
    requestHeaders: documentedRequestHeaders,
  });
}

/** The request headers a method declares in the proto, with their rules, as the server documents them. */
function documentedRequestHeaders(method: DescMethod) {
  const headers = requestHeaders(method);
  if (headers.length === 0) return undefined;
  return Object.fromEntries(
    headers.map((header) => [
      header.name,
      {
        description: header.description,
        schema: {
          type: "string" as const,
          ...(header.minLength > 0 ? { minLength: header.minLength } : {}),
          ...(header.maxLength > 0 ? { maxLength: header.maxLength } : {}),
          ...(header.pattern !== "" ? { pattern: header.pattern } : {}),
        },
      },
    ]),
  );
}
