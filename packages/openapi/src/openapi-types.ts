/**
 * The part of the OpenAPI 3.1 object model this package writes
 * (https://spec.openapis.org/oas/v3.1.1.html). Schemas are JSON Schema 2020-12 objects.
 */

/** A JSON Schema 2020-12 schema, as OpenAPI 3.1's Schema Object. */
export interface SchemaObject {
  $ref?: string;
  type?: JsonType | JsonType[];
  format?: string;
  contentEncoding?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: SchemaObject;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  additionalProperties?: SchemaObject | boolean;
  propertyNames?: SchemaObject;
  minProperties?: number;
  maxProperties?: number;
  anyOf?: SchemaObject[];
  allOf?: SchemaObject[];
  not?: SchemaObject;
  title?: string;
  description?: string;
  readOnly?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
  examples?: unknown[];
}

/** The types of JSON Schema's `type` keyword. */
export type JsonType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";

/** OpenAPI's Reference Object, for the components that are not schemas. */
export interface ReferenceObject {
  $ref: string;
  summary?: string;
  description?: string;
}

export interface OpenApiDocument {
  openapi: "3.1.1";
  info: InfoObject;
  jsonSchemaDialect?: string;
  servers?: ServerObject[];
  paths: Record<string, PathItemObject>;
  components: ComponentsObject;
  tags?: TagObject[];
  security?: SecurityRequirementObject[];
}

export interface InfoObject {
  title: string;
  version: string;
  summary?: string;
  description?: string;
  contact?: { name?: string; url?: string; email?: string };
  license?: { name: string; identifier?: string; url?: string };
}

export interface ServerObject {
  url: string;
  description?: string;
}

export interface TagObject {
  name: string;
  description?: string;
}

/** HTTP methods a Path Item Object has a field for (lower case, as OpenAPI spells them). */
export type PathItemMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

export type PathItemObject = { [M in PathItemMethod]?: OperationObject } & {
  summary?: string;
  description?: string;
  parameters?: ParameterObject[];
};

export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | ReferenceObject>;
  security?: SecurityRequirementObject[];
  deprecated?: boolean;
}

export interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  style?: "simple" | "form";
  explode?: boolean;
  allowReserved?: boolean;
  schema: SchemaObject;
}

export interface RequestBodyObject {
  description?: string;
  required?: boolean;
  content: Record<string, MediaTypeObject>;
}

export interface MediaTypeObject {
  schema: SchemaObject;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, MediaTypeObject>;
}

/** A header of a response. */
export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: SchemaObject;
}

export interface ComponentsObject {
  schemas: Record<string, SchemaObject>;
  responses?: Record<string, ResponseObject>;
  securitySchemes?: Record<string, SecuritySchemeObject>;
}

export type SecuritySchemeObject =
  | { type: "http"; scheme: string; bearerFormat?: string; description?: string }
  | { type: "oauth2"; flows: OAuthFlowsObject; description?: string }
  | { type: "openIdConnect"; openIdConnectUrl: string; description?: string };

/** The OAuth 2.0 flows of an `oauth2` scheme. */
export interface OAuthFlowsObject {
  implicit?: OAuthFlowObject & { authorizationUrl: string };
  password?: OAuthFlowObject & { tokenUrl: string };
  clientCredentials?: OAuthFlowObject & { tokenUrl: string };
  authorizationCode?: OAuthFlowObject & { authorizationUrl: string; tokenUrl: string };
}

/** One OAuth 2.0 flow: its URLs, and the scopes with their descriptions. */
export interface OAuthFlowObject {
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}

/** Scheme name -> the scopes the operation needs. */
export type SecurityRequirementObject = Record<string, string[]>;
