import {
  codeToHttpStatus,
  codeToString,
  type HttpRoute,
  rawBodyTarget,
  routeErrorRules,
} from "@folio/http-transcoder/rules";
import type { CommonErrorContext, OpenApiDocumentOptions } from "./document-options.js";
import {
  type DocumentedError,
  ERROR_ENVELOPE_SCHEMA,
  httpStatusOfCode,
  isConnectErrorCode,
  reasonPhrase,
} from "./errors.js";
import type { HeaderObject, ResponseObject } from "./openapi-types.js";

/**
 * The errors any REST route can answer with, before or around its method: the transcoder's own
 * (a path, query or body that cannot be read, a body too large or of another media type, an
 * unexpected failure; `routeErrorRules` of @folio/http-transcoder), and a missing or insufficient
 * token when the method requires a scope.
 */
export function commonErrorResponses(context: CommonErrorContext): DocumentedError[] {
  const errors: DocumentedError[] = routeErrorRules(context.route).map((rule) => ({
    code: codeToString(rule.code),
    condition: rule.condition,
    // Only a status HTTP has of its own is named: the others follow from the code.
    ...(rule.httpStatus === codeToHttpStatus(rule.code) ? {} : { httpStatus: rule.httpStatus }),
  }));
  if (context.requiredScope !== undefined) {
    errors.push(
      { code: "unauthenticated", condition: "No bearer token, or the token is invalid or expired." },
      { code: "permission_denied", condition: `The token lacks the scope \`${context.requiredScope}\`.` },
    );
  }
  return errors;
}

/**
 * The error responses of a route's operation, one per status: the method's own errors, then those
 * every route can produce, each code once a status, with an example body of each.
 *
 * @private
 */
export function errorResponses(
  route: HttpRoute,
  requiredScope: string | undefined,
  options: OpenApiDocumentOptions,
): Record<string, ResponseObject> {
  const declared = options.errorResponses?.(route.method) ?? [];
  const common = (options.commonErrorResponses ?? commonErrorResponses)({
    route,
    hasBody: route.body !== undefined,
    rawBody: rawBodyTarget(route) !== undefined,
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
