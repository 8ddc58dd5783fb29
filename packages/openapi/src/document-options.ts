import type { DescField, DescMethod, DescService, FileRegistry, JsonValue } from "@bufbuild/protobuf";
import type { HttpRoute, HttpTranscoderJsonOptions } from "@folio/http-transcoder/rules";
import type { DocumentedError } from "./errors.js";
import type { HeaderObject, InfoObject, SchemaObject, ServerObject } from "./openapi-types.js";
import type { SecurityOptions } from "./security.js";

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
   * A `format` for a string field that its protovalidate rules do not give one (those do: `uuid`,
   * `email`...), or undefined for none.
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
