import type {
  DescField,
  DescMessage,
  DescMethod,
  DescService,
  FileRegistry,
  JsonValue,
} from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import { FieldBehavior } from "@folio/googleapis";
import {
  collectHttpRoutes,
  type HttpRoute,
  type HttpTranscoderJsonOptions,
  isHttpBody,
  isStringLikeMessage,
  nextPageTokenField,
} from "@folio/http-transcoder";
import { createCommentLookup } from "./comments.js";
import {
  type DocumentedError,
  ERROR_ENVELOPE_SCHEMA,
  errorEnvelopeSchema,
  httpStatusOfCode,
  isConnectErrorCode,
  reasonPhrase,
} from "./errors.js";
import { getFieldBehaviors } from "./field-behavior.js";
import type {
  HeaderObject,
  InfoObject,
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  PathItemMethod,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
  ServerObject,
  TagObject,
} from "./openapi-types.js";
import { createSchemaBuilder, type SchemaBuilder } from "./schemas.js";
import { createSecurityDocumenter, type SecurityDocumenter, type SecurityOptions } from "./security.js";

/** Options of {@link createOpenApiDocument}. Everything specific to one API comes in here. */
export interface OpenApiDocumentOptions {
  /** The services whose `google.api.http` routes are documented, in this order. */
  readonly services: readonly DescService[];
  /** The document's `info`: title, version and a description (CommonMark). */
  readonly info: InfoObject;
  /**
   * The document's `servers`. Default: one server, `basePath` relative to where the document is
   * served (`/` without a `basePath`).
   */
  readonly servers?: readonly ServerObject[];
  /**
   * A path every route starts with (`/api/v1`), documented once, in the server URLs, rather than
   * in every path: `/api/v1/folders` is the path `/folders` of the server `/api/v1`.
   */
  readonly basePath?: string;
  /**
   * Descriptors with source info, whose comments become the descriptions of operations, tags,
   * schemas and properties: e.g. `createFileRegistry(fromBinary(FileDescriptorSetSchema, image))`
   * of a `buf build` image. Without it, descriptions come only from these options.
   */
  readonly comments?: FileRegistry;
  /** How operations are authorised: the scope each method requires, and the security scheme. */
  readonly security?: SecurityOptions;
  /** HTTP status of a successful response (default 200), e.g. 201 for a create. */
  readonly successStatus?: (method: DescMethod) => number | undefined;
  /** The error responses a method documents, beyond the ones every route can produce. */
  readonly errorResponses?: (method: DescMethod) => readonly DocumentedError[];
  /**
   * The error responses every route can produce, whatever its method says (see
   * {@link commonErrorResponses}, the default). Return `[]` to document only `errorResponses`.
   */
  readonly commonErrorResponses?: (route: CommonErrorContext) => readonly DocumentedError[];
  /**
   * A `format` for a string field, e.g. `uuid`, or undefined for none. See
   * {@link uuidForIdFields} for a rule by field name.
   */
  readonly stringFormat?: (field: DescField) => string | undefined;
  /**
   * Whether responses carry every field, absent ones (fields with explicit presence) as `null`,
   * so that response schemas list every property as required. Default: true.
   */
  readonly responseFieldsAlwaysPresent?: boolean;
  /**
   * Fields with explicit presence (message fields, `optional` ones) that the server sets in every
   * response: their response schemas do not allow `null`. Default: none; the others may be null.
   */
  readonly alwaysSetInResponses?: (field: DescField) => boolean;
  /**
   * Request headers an operation reads (say, `Idempotency-Key`), documented as header
   * parameters. Headers the security scheme covers (`Authorization`) are not listed here.
   */
  readonly requestHeaders?: (
    method: DescMethod,
  ) =>
    | Readonly<Record<string, { description?: string; required?: boolean; schema: SchemaObject }>>
    | undefined;
  /**
   * An example request body of a method: what documentation pages offer to send (a valid
   * request, where a body made up from the schema would be refused).
   */
  readonly requestExample?: (method: DescMethod) => JsonValue | undefined;
  /**
   * The JSON options the transcoder was given (`createHttpTranscoder({ jsonOptions })`): proto
   * field names instead of JSON names, enum numbers instead of names in responses.
   */
  readonly jsonOptions?: Pick<HttpTranscoderJsonOptions, "useProtoFieldName" | "enumAsInteger">;
  /**
   * Whether the transcoder sends next pages as `Link` headers (`createHttpTranscoder({ pageLinks
   * })`): paginated responses then document the header, and not `nextPageToken` in the body.
   */
  readonly pageLinks?: boolean;
  /**
   * Headers a response of an operation may carry, by HTTP status (say, `Retry-After` on 429, or
   * rate-limit headers on every response); added to those the document knows of itself.
   */
  readonly responseHeaders?: (
    status: number,
    method: DescMethod,
  ) => Readonly<Record<string, HeaderObject>> | undefined;
  /**
   * The body of error responses, when the transcoder's `errorBody` option replaces the envelope:
   * its schema (a component named `schemaName`, default `ErrorEnvelope`), media type, and an
   * example of an error of a code.
   */
  readonly errorBody?: ErrorBodyOptions;
}

/** How error responses look, for {@link OpenApiDocumentOptions.errorBody}. */
export interface ErrorBodyOptions {
  readonly schema: SchemaObject;
  /** Default: `ErrorEnvelope`. */
  readonly schemaName?: string;
  /** Default: `application/json`. */
  readonly contentType?: string;
  /** An example body of an error with the code and condition, at the status. */
  readonly example?: (error: DocumentedError, status: number) => unknown;
}

/** What {@link OpenApiDocumentOptions.commonErrorResponses} knows of a route. */
export interface CommonErrorContext {
  readonly route: HttpRoute;
  /** Whether the route reads a request body. */
  readonly hasBody: boolean;
  /** Whether that body is a `google.api.HttpBody`, taken as it is, of any media type. */
  readonly rawBody: boolean;
  /** The scope the route's method requires, if any. */
  readonly requiredScope: string | undefined;
}

/**
 * The errors any REST route can answer with, before or around its method: a body or query that
 * cannot be parsed, a missing or insufficient token, a body too large or of another media type,
 * and an unexpected failure.
 */
export function commonErrorResponses(context: CommonErrorContext): DocumentedError[] {
  const errors: DocumentedError[] = [];
  errors.push({
    code: "invalid_argument",
    condition: !context.hasBody
      ? "A path or query parameter is unknown or cannot be parsed, or the request has a body."
      : context.rawBody
        ? "A path or query parameter is unknown or cannot be parsed."
        : "The body is not valid JSON, has a field the request message does not have, or a value of the wrong type; or a path or query parameter cannot be parsed.",
  });
  if (context.requiredScope !== undefined) {
    errors.push({
      code: "unauthenticated",
      condition: "No bearer token, or the token is invalid or expired.",
    });
    errors.push({
      code: "permission_denied",
      condition: `The token lacks the scope \`${context.requiredScope}\`.`,
    });
  }
  if (context.hasBody) {
    errors.push({
      code: "resource_exhausted",
      condition: "The body is larger than the server accepts.",
      httpStatus: 413,
    });
    errors.push({
      code: "invalid_argument",
      condition: context.rawBody
        ? "The body has a `Content-Encoding` (compressed bodies are not accepted)."
        : "The body's `Content-Type` is not `application/json` (in UTF-8), or the body has a `Content-Encoding`.",
      httpStatus: 415,
    });
  }
  errors.push({ code: "internal", condition: "An unexpected server error; quote the `requestId`." });
  return errors;
}

/**
 * The format rule many APIs follow for identifiers: a string field named `id` or ending in `_id`
 * (`org_id`, `parent_id`) holds a UUID. `request_id` is the exception: AIP-155 names so the
 * client's idempotency key, which a UUID is a good choice for but need not be.
 * For {@link OpenApiDocumentOptions.stringFormat}.
 */
export function uuidForIdFields(field: DescField): string | undefined {
  if (field.name === "request_id") return undefined;
  return field.name === "id" || field.name.endsWith("_id") ? "uuid" : undefined;
}

/**
 * Builds an OpenAPI 3.1 document of the REST routes of `services`, from the same descriptors and
 * the same route table (`collectHttpRoutes`) the HTTP transcoder serves, so that the document
 * describes exactly what is served: paths and methods (additional bindings included), path and
 * query parameters, request and response bodies in the ProtoJSON mapping, security and errors.
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

interface OperationContext {
  readonly options: OpenApiDocumentOptions;
  readonly schemas: SchemaBuilder;
  readonly comments: ReturnType<typeof createCommentLookup>;
  readonly security: SecurityDocumenter | undefined;
}

function operationFor(route: HttpRoute, context: OperationContext): OperationObject {
  const { options, schemas, comments } = context;
  const method = route.method;
  const service = method.parent;
  const requiredScope = options.security?.requiredScope(method);

  const description: string[] = [];
  const comment = comments(method);
  if (comment !== undefined) description.push(comment);
  if (requiredScope !== undefined)
    description.push(`Requires a bearer token with the scope \`${requiredScope}\`.`);
  description.push(`RPC: \`${service.typeName}/${method.name}\`.`);

  const parameters = [
    ...pathParameters(route, schemas, comments),
    ...queryParameters(route, schemas, comments, options.jsonOptions?.useProtoFieldName ?? false),
    ...headerParameters(options.requestHeaders?.(method)),
  ];
  const requestBody = requestBodyFor(route, schemas, comments, options.requestExample?.(method));
  const rawBody = hasRawBody(route);
  const status = options.successStatus?.(method) ?? 200;
  const operationId = `${service.name}_${method.name}${route.binding > 0 ? `_${route.binding}` : ""}`;
  const operation: OperationObject = {
    operationId,
    summary: humanize(method.name),
    description: description.join("\n\n"),
    tags: [service.name],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody !== undefined ? { requestBody } : {}),
    responses: {
      [String(status)]: successResponse(
        route,
        status,
        schemas,
        comments,
        options.pageLinks ?? false,
        options.errorBody?.schemaName ?? ERROR_ENVELOPE_SCHEMA,
      ),
      ...errorResponses(route, requestBody !== undefined, rawBody, requiredScope, options),
    },
  };

  if (options.responseHeaders !== undefined) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const headers = options.responseHeaders(Number(status), method);
      if (headers !== undefined && Object.keys(headers).length > 0) {
        (response as ResponseObject).headers = { ...(response as ResponseObject).headers, ...headers };
      }
    }
  }
  if (context.security !== undefined) {
    operation.security = context.security.requirement(method, operationId);
  }
  if (method.deprecated) operation.deprecated = true;
  return operation;
}

/** `CreateFolder` -> `Create folder`: the operation's name as people read it. */
function humanize(name: string): string {
  const words = name.split(/(?<=[a-z0-9])(?=[A-Z])/);
  return words.map((word, i) => (i === 0 ? word : word.toLowerCase())).join(" ");
}

// ---------------------------------------------------------------------------------------------
// Parameters

function pathParameters(
  route: HttpRoute,
  schemas: SchemaBuilder,
  comments: ReturnType<typeof createCommentLookup>,
): ParameterObject[] {
  return route.pathVariables.map((variable) => {
    const leaf = variable.fields[variable.fields.length - 1] as DescField;
    const schema = schemas.fieldSchema(leaf, "request");
    const description: string[] = [];
    const comment = comments(leaf);
    if (comment !== undefined) description.push(comment);
    const captured = route.template.segments.slice(variable.start, variable.end);
    if (variable.pattern !== "*") {
      schema.pattern = `^${captured.map(segmentPattern).join("/")}$`;
      description.push(
        variable.multiSegment
          ? `Format: \`${variable.pattern}\` (\`*\` is one path segment), its \`/\` sent as they are, not percent-encoded.`
          : `Format: \`${variable.pattern}\`.`,
      );
    }
    const parameter: ParameterObject = {
      name: variable.fieldPath.join("."),
      in: "path",
      required: true,
      schema,
    };
    if (description.length > 0) parameter.description = description.join("\n\n");
    return parameter;
  });
}

/** A regular expression for one segment of a path template. */
function segmentPattern(segment: HttpRoute["template"]["segments"][number]): string {
  switch (segment.kind) {
    case "literal":
      return segment.value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    case "wildcard":
      return "[^/]+";
    case "deep-wildcard":
      return ".*";
  }
}

/**
 * Every field the path and the body leave unbound is a query parameter (google/api/http.proto),
 * as the transcoder reads them: scalars, enums, well-known types with a string form
 * (`Timestamp`, `Duration`, `FieldMask`, wrappers) and repeated ones of those, and the fields of
 * nested messages by their dotted path. Maps and other messages (`Struct`, `Any`, repeated
 * messages) have no query form. The transcoder takes proto and JSON names alike; the document
 * names parameters as the JSON bodies do.
 */
function queryParameters(
  route: HttpRoute,
  schemas: SchemaBuilder,
  comments: ReturnType<typeof createCommentLookup>,
  useProtoFieldName: boolean,
): ParameterObject[] {
  if (route.body === "*") return [];
  const bound: (readonly DescField[])[] = route.pathVariables.map((variable) => variable.fields);
  if (route.bodyField !== undefined) bound.push([route.bodyField]);
  // Bound as a whole: a bound field path is a prefix of the field's own (or equal to it).
  const isCovered = (path: readonly DescField[]) =>
    bound.some((fields) => fields.length <= path.length && fields.every((field, i) => path[i] === field));
  // Bound in part or whole: one of the two paths is a prefix of the other.
  const overlaps = (path: readonly DescField[]) =>
    bound.some((fields) => fields.every((field, i) => i >= path.length || path[i] === field));

  const parameters: ParameterObject[] = [];
  const visit = (message: DescMessage, prefix: readonly DescField[], required: boolean) => {
    for (const field of message.fields) {
      const path = [...prefix, field];
      const behaviors = getFieldBehaviors(field);
      if (behaviors.has(FieldBehavior.OUTPUT_ONLY)) continue;
      const isRequired = required && behaviors.has(FieldBehavior.REQUIRED);
      if (field.fieldKind === "message" && !isStringLike(field.message)) {
        // Into a nested message, unless it is bound as a whole, opaque, or already on the path.
        const nested = field.message;
        if (isCovered(path) || hasCustomJsonRepresentation(nested)) continue;
        if (nested === route.method.input || prefix.some((f) => f.message === nested)) continue;
        visit(nested, path, isRequired);
        continue;
      }
      if (overlaps(path) || field.fieldKind === "map") continue;
      if (field.fieldKind === "list" && field.listKind === "message" && !isStringLike(field.message))
        continue;

      const parameter: ParameterObject = {
        name: path.map((f) => (useProtoFieldName ? f.name : f.jsonName)).join("."),
        in: "query",
        schema: schemas.fieldSchema(field, "request"),
      };
      if (field.fieldKind === "list") {
        parameter.style = "form";
        parameter.explode = true;
      }
      if (isRequired) parameter.required = true;
      if (field.deprecated) parameter.deprecated = true;
      const description = comments(field);
      if (description !== undefined) parameter.description = description;
      parameters.push(parameter);
    }
  };
  visit(route.method.input, [], true);
  return parameters;
}

/** Written as one string in a URL: the transcoder's own rule, so the document matches what it parses. */
const isStringLike = isStringLikeMessage;

// ---------------------------------------------------------------------------------------------
// Bodies

function requestBodyFor(
  route: HttpRoute,
  schemas: SchemaBuilder,
  comments: ReturnType<typeof createCommentLookup>,
  example: JsonValue | undefined,
): RequestBodyObject | undefined {
  const input = route.method.input;
  let schema: SchemaObject;
  let description: string | undefined;
  // The transcoder reads an empty body as an empty message: a body is only needed when it holds
  // a field the method requires.
  let required: boolean;
  if (route.body === undefined) {
    return undefined;
  } else if (hasRawBody(route)) {
    return rawBody(comments(route.body === "*" ? input : (route.bodyField as DescField)));
  } else if (route.body === "*") {
    const boundTopLevel = new Set(
      route.pathVariables.filter((v) => v.fieldPath.length === 1).map((v) => v.fieldPath[0] as string),
    );
    schema =
      boundTopLevel.size === 0
        ? schemas.messageRef(input, "request")
        : schemas.messageSchemaWithout(input, "request", boundTopLevel);
    required = input.fields.some((f) => !boundTopLevel.has(f.name) && isRequiredInRequest(f));
  } else {
    const field = route.bodyField as DescField;
    schema = schemas.fieldSchema(field, "request");
    description = comments(field);
    required = isRequiredInRequest(field);
  }
  const body: RequestBodyObject = {
    required,
    content: { "application/json": example === undefined ? { schema } : { schema, example } },
  };
  if (description !== undefined) body.description = description;
  return body;
}

/**
 * A server stream: newline-delimited JSON (`{"result": message}` a line), or Server-Sent Events
 * for a client that accepts `text/event-stream`; a failure after the stream started ends it with
 * the error body (an NDJSON line, an `error` event).
 */
function streamResponse(
  route: HttpRoute,
  description: string,
  schemas: SchemaBuilder,
  comments: ReturnType<typeof createCommentLookup>,
  errorSchemaName: string,
): ResponseObject {
  const field = route.responseBodyField;
  const message =
    field === undefined
      ? schemas.messageRef(route.method.output, "response")
      : schemas.fieldSchema(field, "response");
  const comment = field === undefined ? undefined : comments(field);
  const errorRef = { $ref: `#/components/schemas/${errorSchemaName}` };
  return {
    description: [
      description,
      comment,
      'A stream of messages: newline-delimited JSON, one `{"result": message}` a line, or, with `Accept: text/event-stream`, Server-Sent Events, one `data:` event a message. A failure after the stream started ends it with the error body: as the last line, or as an `event: error`.',
    ]
      .filter((part) => part !== undefined)
      .join(" "),
    content: {
      "application/x-ndjson": {
        schema: {
          description: "One line of the stream.",
          anyOf: [{ type: "object", required: ["result"], properties: { result: message } }, errorRef],
        },
      },
      "text/event-stream": {
        schema: {
          type: "string",
          description: "`data: <message JSON>` events, and an `event: error` whose data is the error body.",
        },
      },
    },
  };
}

/** Whether the route's request body is a `google.api.HttpBody` (`body: "*"` or the named field). */
function hasRawBody(route: HttpRoute): boolean {
  return route.body === "*"
    ? isHttpBody(route.method.input)
    : route.bodyField?.fieldKind === "message" && isHttpBody(route.bodyField.message);
}

/** Raw bytes of any media type: a `google.api.HttpBody`. */
const BINARY: SchemaObject = { type: "string", format: "binary" };

/** A request body that is a `google.api.HttpBody`: any media type, sent as it is. */
function rawBody(comment: string | undefined): RequestBodyObject {
  const description = "The body as it is, of any media type; its `Content-Type` goes with it.";
  return {
    required: true,
    description: comment === undefined ? description : `${comment}\n\n${description}`,
    content: { "*/*": { schema: { ...BINARY } } },
  };
}

/** Request headers as header parameters. */
function headerParameters(headers: ReturnType<NonNullable<OpenApiDocumentOptions["requestHeaders"]>>) {
  return Object.entries(headers ?? {}).map(
    ([name, header]): ParameterObject => ({
      name,
      in: "header",
      ...(header.description === undefined ? {} : { description: header.description }),
      ...(header.required === true ? { required: true } : {}),
      schema: header.schema,
    }),
  );
}

function isRequiredInRequest(field: DescField): boolean {
  const behaviors = getFieldBehaviors(field);
  return behaviors.has(FieldBehavior.REQUIRED) && !behaviors.has(FieldBehavior.OUTPUT_ONLY);
}

function successResponse(
  route: HttpRoute,
  status: number,
  schemas: SchemaBuilder,
  comments: ReturnType<typeof createCommentLookup>,
  pageLinks: boolean,
  errorSchemaName: string,
): ResponseObject {
  let schema: SchemaObject;
  let description = status === 201 ? "Created." : "OK.";
  const streaming = route.method.methodKind === "server_streaming";
  const nextPage = pageLinks && !streaming ? nextPageTokenField(route) : undefined;
  const field = route.responseBodyField;
  if (isHttpBody(field === undefined ? route.method.output : field.message)) {
    // google.api.HttpBody: the bytes as they are, with the content type the method gives them.
    return {
      description: streaming
        ? `${description} The chunks of the stream one after the other, of the first one's content type. A stream that fails after it started is cut off.`
        : `${description} The body as the method produces it, of its own content type.`,
      content: { "*/*": { schema: { ...BINARY } } },
    };
  }
  if (streaming) {
    return streamResponse(route, description, schemas, comments, errorSchemaName);
  }
  if (route.responseBodyField !== undefined) {
    schema = schemas.fieldSchema(route.responseBodyField, "response");
    const comment = comments(route.responseBodyField);
    if (comment !== undefined) description = `${description} ${comment}`;
  } else if (nextPage !== undefined) {
    schema = schemas.messageSchemaWithout(route.method.output, "response", new Set([nextPage.name]));
  } else {
    schema = schemas.messageRef(route.method.output, "response");
  }
  const response: ResponseObject = { description, content: { "application/json": { schema } } };
  if (nextPage !== undefined) {
    response.headers = {
      Link: {
        description:
          'The next page, when there is one: `<path?query&pageToken=...>; rel="next"` (RFC 8288), the request\'s own path and query with `pageToken` set. Absent on the last page.',
        schema: { type: "string" },
      },
    };
  }
  return response;
}

// ---------------------------------------------------------------------------------------------
// Errors

function errorResponses(
  route: HttpRoute,
  hasBody: boolean,
  rawBody: boolean,
  requiredScope: string | undefined,
  options: OpenApiDocumentOptions,
): Record<string, ResponseObject> {
  const declared = options.errorResponses?.(route.method) ?? [];
  const common = (options.commonErrorResponses ?? commonErrorResponses)({
    route,
    hasBody,
    rawBody,
    requiredScope,
  });

  const byStatus = new Map<number, DocumentedError[]>();
  for (const error of [...declared, ...common]) {
    if (!isConnectErrorCode(error.code)) {
      throw new Error(
        `${route.method.parent.typeName}.${route.method.name}: error code "${error.code}" is not a Connect error code`,
      );
    }
    const status = error.httpStatus ?? httpStatusOfCode(error.code);
    const errors = byStatus.get(status) ?? [];
    // A method's own condition for a code says more than the common one: keep only the first.
    if (!errors.some((e) => e.code === error.code && e.httpStatus === error.httpStatus)) errors.push(error);
    byStatus.set(status, errors);
  }

  const responses: Record<string, ResponseObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const errors = byStatus.get(status) ?? [];
    const lines = errors.map((error) => `- \`${error.code}\`: ${error.condition}`);
    const examples: Record<string, { summary: string; value: unknown }> = {};
    const example = options.errorBody === undefined ? envelopeExample : options.errorBody.example;
    for (const error of errors) {
      if (example === undefined || examples[error.code] !== undefined) continue;
      examples[error.code] = { summary: error.code, value: example(error, status) };
    }
    const media = {
      schema: { $ref: `#/components/schemas/${options.errorBody?.schemaName ?? ERROR_ENVELOPE_SCHEMA}` },
    };
    responses[String(status)] = {
      description: `${reasonPhrase(status)}.\n\n${lines.join("\n")}`.replace(/^\.\n\n/, ""),
      headers: { "X-Request-Id": requestIdHeader() },
      content: {
        [options.errorBody?.contentType ?? "application/json"]:
          Object.keys(examples).length > 0 ? { ...media, examples } : media,
      },
    };
  }
  return responses;
}

/** An example of the transcoder's error envelope. */
function envelopeExample(error: DocumentedError): unknown {
  return {
    error: {
      code: error.code,
      message: error.condition,
      requestId: "3f1c0c6e-8a4f-4b1e-9d8e-2b7c6f0e5a91",
      details: [],
    },
  };
}

/** The transcoder sends the request's id with every error, as the envelope's `requestId` too. */
function requestIdHeader(): HeaderObject {
  return {
    description: "The request's id, as in the body's `requestId`; quote it when reporting a problem.",
    required: true,
    schema: { type: "string" },
  };
}

const PATH_ITEM_METHODS: ReadonlySet<string> = new Set([
  "get",
  "put",
  "post",
  "delete",
  "options",
  "head",
  "patch",
  "trace",
]);

function isPathItemMethod(method: string): method is PathItemMethod {
  return PATH_ITEM_METHODS.has(method);
}
