import {
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
  getOption,
  hasOption,
} from "@bufbuild/protobuf";
import { http } from "./gen/google/api/annotations_pb.js";
import type { HttpRule } from "./gen/google/api/http_pb.js";
import {
  type PathTemplate,
  type PathTemplateVariable,
  parsePathTemplate,
  pathTemplateToOpenApiPath,
} from "./path-template.js";
import { isStringLikeMessage } from "./well-known-types.js";

/**
 * One HTTP binding of an RPC, read from its `google.api.http` option: the rule itself or one of
 * its `additional_bindings`. Validated against the method's request and response messages.
 */
export interface HttpRoute {
  /** The RPC the route calls. */
  readonly method: DescMethod;
  /**
   * The HTTP method: `GET`, `PUT`, `POST`, `DELETE`, `PATCH`, or the `kind` of a custom pattern
   * (http.proto: "custom: The custom pattern is used for specifying an HTTP method that is not
   * included in the `pattern` field, such as HEAD").
   */
  readonly httpMethod: string;
  /** The path template as written in the rule: `/v1/{name=shelves/*}`. */
  readonly pattern: string;
  /** The parsed path template. */
  readonly template: PathTemplate;
  /** The variables of the path template, with the request fields they bind. */
  readonly pathVariables: readonly HttpPathVariable[];
  /**
   * What the request body holds: `"*"` for every field not bound by the path, the name of a
   * top-level request field for that field alone, `undefined` for no body (every field not bound
   * by the path comes from the query string).
   */
  readonly body: string | undefined;
  /** The request field named by `body`, unless `body` is `"*"` or absent. */
  readonly bodyField: DescField | undefined;
  /** The name of the top-level response field sent as the response body, or `undefined` for all. */
  readonly responseBody: string | undefined;
  /** The response field named by `responseBody`. */
  readonly responseBodyField: DescField | undefined;
  /**
   * The path template as an OpenAPI path (OpenAPI 3.1, section 4.8.2): every variable becomes
   * `{field.path}`, whatever it captures: `/v1/{name=shelves/*}` is `/v1/{name}`.
   */
  readonly openApiPath: string;
  /** 0 for the rule itself, 1 and up for its `additional_bindings`, in order. */
  readonly binding: number;
}

/** A variable of a route's path template, with the request fields it binds. */
export interface HttpPathVariable extends PathTemplateVariable {
  /** The request fields along {@link PathTemplateVariable.fieldPath}, outermost first. */
  readonly fields: readonly DescField[];
}

/**
 * Reads the `google.api.http` option of every method of the given services, additional bindings
 * included, in the order the services and methods are declared. Methods without the option have
 * no route.
 *
 * Throws at start-up, naming the method, when a rule is invalid: a path template that does not
 * parse, a variable, `body` or `response_body` that names no field or a field it cannot bind
 * (http.proto: "The path variables must not refer to any repeated or mapped field"; body and
 * response_body: "The referred field must be present at the top-level of the request message
 * type"), nested additional bindings.
 */
export function collectHttpRoutes(services: readonly DescService[]): HttpRoute[] {
  const routes: HttpRoute[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      // protobuf-es reads an option by its extension's field number, so the rules of services
      // generated with any copy of google/api/annotations (a user's own, not this package's) are
      // read the same.
      if (!hasOption(method, http)) {
        continue;
      }
      const rule = getOption(method, http);
      routes.push(routeFromRule(method, rule, 0));
      rule.additionalBindings.forEach((binding, index) => {
        if (binding.additionalBindings.length > 0) {
          throw routeError(
            method,
            "an additional binding has additional_bindings itself (http.proto: the nesting may only be one level deep)",
          );
        }
        routes.push(routeFromRule(method, binding, index + 1));
      });
    }
  }
  return routes;
}

function routeFromRule(method: DescMethod, rule: HttpRule, binding: number): HttpRoute {
  let httpMethod: string;
  let pattern: string;
  switch (rule.pattern.case) {
    case undefined:
      throw routeError(
        method,
        "the google.api.http rule has no pattern (get, put, post, delete, patch, custom)",
      );
    case "custom":
      httpMethod = rule.pattern.value.kind;
      pattern = rule.pattern.value.path;
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(httpMethod)) {
        // RFC 9110, section 9.1: a method is a token.
        throw routeError(method, `the custom pattern's kind "${httpMethod}" is not an HTTP method`);
      }
      break;
    default:
      httpMethod = rule.pattern.case.toUpperCase();
      pattern = rule.pattern.value;
  }
  let template: PathTemplate;
  try {
    template = parsePathTemplate(pattern);
  } catch (error) {
    throw routeError(method, error instanceof Error ? error.message : String(error));
  }

  const pathVariables = template.variables.map((variable): HttpPathVariable => {
    const fields = resolveFieldPath(method, method.input, variable.fieldPath, "path variable");
    const leaf = fields[fields.length - 1] as DescField;
    if (leaf.fieldKind === "list" || leaf.fieldKind === "map") {
      throw routeError(
        method,
        `the path variable "${variable.fieldPath.join(".")}" is a ${leaf.fieldKind} field`,
      );
    }
    if (leaf.fieldKind === "message" && !isStringLikeMessage(leaf.message)) {
      throw routeError(
        method,
        `the path variable "${variable.fieldPath.join(".")}" is a message field (${leaf.message.typeName})`,
      );
    }
    return { ...variable, fields };
  });

  const body = rule.body === "" ? undefined : rule.body;
  let bodyField: DescField | undefined;
  if (body !== undefined && body !== "*") {
    bodyField = topLevelField(method, method.input, body, "body");
    if (pathVariables.some((v) => v.fieldPath.length === 1 && v.fieldPath[0] === body)) {
      throw routeError(method, `the field "${body}" is bound both by the path and as the body`);
    }
  }
  const responseBody = rule.responseBody === "" ? undefined : rule.responseBody;
  const responseBodyField =
    responseBody === undefined
      ? undefined
      : topLevelField(method, method.output, responseBody, "response_body");

  return {
    method,
    httpMethod,
    pattern,
    template,
    pathVariables,
    body,
    bodyField,
    responseBody,
    responseBodyField,
    openApiPath: pathTemplateToOpenApiPath(template),
    binding,
  };
}

function topLevelField(method: DescMethod, message: DescMessage, name: string, what: string): DescField {
  const field = message.fields.find((f) => f.name === name);
  if (field === undefined) {
    throw routeError(method, `${what} "${name}" is not a field of ${message.typeName}`);
  }
  return field;
}

function resolveFieldPath(
  method: DescMethod,
  message: DescMessage,
  fieldPath: readonly string[],
  what: string,
): DescField[] {
  const fields: DescField[] = [];
  let current: DescMessage = message;
  fieldPath.forEach((name, index) => {
    const field = current.fields.find((f) => f.name === name);
    if (field === undefined) {
      throw routeError(
        method,
        `${what} "${fieldPath.join(".")}": "${name}" is not a field of ${current.typeName}`,
      );
    }
    fields.push(field);
    if (index < fieldPath.length - 1) {
      if (field.fieldKind !== "message") {
        throw routeError(
          method,
          `${what} "${fieldPath.join(".")}": "${name}" is not a singular message field, so it has no fields`,
        );
      }
      current = field.message;
    }
  });
  return fields;
}

function routeError(method: DescMethod, reason: string): Error {
  return new Error(`google.api.http rule of ${method.parent.typeName}.${method.name}: ${reason}`);
}
