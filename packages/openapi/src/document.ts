import { collectHttpRoutes } from "@folio/http-transcoder/rules";
import { createCommentLookup } from "./comments.js";
import type { OpenApiDocumentOptions } from "./document-options.js";
import { ERROR_ENVELOPE_SCHEMA, errorEnvelopeSchema } from "./errors.js";
import type { OpenApiDocument, TagObject } from "./openapi-types.js";
import { operationFor } from "./operation.js";
import { isPathItemMethod } from "./path-item-methods.js";
import { createSchemaBuilder } from "./schemas.js";
import { createSecurityDocumenter } from "./security.js";

/**
 * Builds an OpenAPI 3.1 document of the REST routes of `services`, from the same descriptors and
 * the same route table (`collectHttpRoutes`) the HTTP transcoder serves, so that the document
 * describes exactly what is served: paths and methods (additional bindings included), path and
 * query parameters, request and response bodies in the ProtoJSON mapping with the constraints of
 * their protovalidate rules (`buf.validate`), security and errors.
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions): OpenApiDocument {
  const comments = createCommentLookup(options.comments);
  const schemas = createSchemaBuilder({
    comments,
    stringFormat: options.stringFormat,
    responseFieldsAlwaysPresent: options.responseFieldsAlwaysPresent ?? true,
    alwaysSetInResponses: options.alwaysSetInResponses ?? (() => false),
    useProtoFieldName: options.jsonOptions?.useProtoFieldName ?? false,
    enumAsInteger: options.jsonOptions?.enumAsInteger ?? false,
  });
  const security = options.security === undefined ? undefined : createSecurityDocumenter(options.security);
  const basePath = options.basePath === undefined ? "" : trimTrailingSlash(options.basePath);

  const paths: OpenApiDocument["paths"] = {};
  for (const route of collectHttpRoutes(options.services)) {
    const name = `${route.method.parent.typeName}.${route.method.name}`;
    const httpMethod = route.httpMethod.toLowerCase();
    if (!isPathItemMethod(httpMethod)) {
      throw new Error(`${name}: HTTP method ${route.httpMethod} cannot be described in OpenAPI`);
    }
    if (!route.openApiPath.startsWith(`${basePath}/`)) {
      throw new Error(`${name}: the path ${route.pattern} does not start with the basePath ${basePath}`);
    }
    const path = route.openApiPath.slice(basePath.length);
    const pathItem = paths[path] ?? {};
    paths[path] = pathItem;
    if (pathItem[httpMethod] !== undefined) {
      throw new Error(`two routes for ${route.httpMethod} ${route.openApiPath}`);
    }
    pathItem[httpMethod] = operationFor(route, { options, schemas, comments, security });
  }

  const tags: TagObject[] = options.services.map((service) => {
    const description = comments(service);
    return description === undefined ? { name: service.name } : { name: service.name, description };
  });

  const componentSchemas = schemas.components();
  const errorSchemaName = options.errorBody?.schemaName ?? ERROR_ENVELOPE_SCHEMA;
  if (componentSchemas[errorSchemaName] !== undefined) {
    throw new Error(`a message is named ${errorSchemaName}, like the schema of error responses`);
  }
  componentSchemas[errorSchemaName] = options.errorBody?.schema ?? errorEnvelopeSchema();

  const servers =
    options.servers === undefined
      ? [{ url: basePath === "" ? "/" : basePath }]
      : options.servers.map((server) => ({ ...server, url: `${trimTrailingSlash(server.url)}${basePath}` }));
  const document: OpenApiDocument = {
    openapi: "3.1.1",
    info: { ...options.info },
    servers,
    tags,
    paths,
    components: { schemas: componentSchemas },
  };
  if (security !== undefined) {
    document.components.securitySchemes = security.schemes();
  }
  return document;
}

function trimTrailingSlash(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : path;
}
