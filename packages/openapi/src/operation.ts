import type { HttpRoute } from "@folio/http-transcoder/rules";
import { requestBodyFor, successResponse } from "./bodies.js";
import type { CommentLookup } from "./comments.js";
import type { OpenApiDocumentOptions } from "./document-options.js";
import { errorResponses } from "./error-responses.js";
import { ERROR_ENVELOPE_SCHEMA } from "./errors.js";
import { httpSemanticsParameters, httpSemanticsResponses } from "./http-semantics.js";
import type { OperationObject, ResponseObject } from "./openapi-types.js";
import { headerParameters, pathParameters, queryParameters } from "./parameters.js";
import type { SchemaBuilder } from "./schemas.js";
import type { SecurityDocumenter } from "./security.js";

/** What describing an operation needs besides its route. @private */
export interface OperationContext {
  readonly options: OpenApiDocumentOptions;
  readonly schemas: SchemaBuilder;
  readonly comments: CommentLookup;
  readonly security: SecurityDocumenter | undefined;
}

/**
 * The operation of a route: summary and description (the method's comment, its scope, its RPC),
 * parameters, request body, responses and security.
 *
 * @private
 */
export function operationFor(route: HttpRoute, context: OperationContext): OperationObject {
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
    ...httpSemanticsParameters(route),
  ];
  const requestBody = requestBodyFor(route, schemas, comments, options.requestExample?.(method));
  const status = options.successStatus?.(method) ?? 200;
  const operationId = `${service.name}_${method.name}${route.binding > 0 ? `_${route.binding}` : ""}`;
  const success = successResponse(
    route,
    status,
    schemas,
    comments,
    options.pageLinks ?? false,
    options.errorBody?.schemaName ?? ERROR_ENVELOPE_SCHEMA,
  );
  const operation: OperationObject = {
    operationId,
    summary: humanize(method.name),
    description: description.join("\n\n"),
    tags: [service.name],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody !== undefined ? { requestBody } : {}),
    responses: {
      [String(status)]: success,
      ...httpSemanticsResponses(route, success),
      ...errorResponses(route, requiredScope, options),
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
