import { create, fromJson, type JsonReadOptions, type JsonValue, type Message } from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { bodyError } from "./body-error.js";
import type { HttpRoute } from "./http-route.js";
import { type FieldViolation, invalidArgument } from "./invalid-argument.js";
import { createPathVariablesSetter } from "./path-variables.js";
import { createQueryStringSetter } from "./query-string.js";

/**
 * Builds the request message of a route from the three places http.proto maps fields to: the
 * path, the body and the query string. Throws a ConnectError (`invalid_argument`, with a
 * `google.rpc.BadRequest` detail) naming what is wrong.
 *
 * @private
 */
export type RequestMessageReader = (
  /** The request body as parsed JSON, `undefined` for none. */
  body: JsonValue | undefined,
  /** The raw path segments, the custom verb cut off. */
  segments: readonly string[],
  /** The query string, without "?"; "" for none. */
  query: string,
) => Message;

/**
 * Compiles the {@link RequestMessageReader} of a route: everything that depends on the route alone
 * (field paths, value parsers, which fields the path and body bind) is resolved here, once.
 *
 * @private
 */
export function createRequestMessageReader(
  route: HttpRoute,
  jsonOptions: Partial<JsonReadOptions>,
): RequestMessageReader {
  const input = route.method.input;
  const readOptions: Partial<JsonReadOptions> = { ...jsonOptions, ignoreUnknownFields: false };
  const setPathVariables = createPathVariablesSetter(route);
  const setQueryString = createQueryStringSetter(route);
  const bodyField = route.bodyField;
  const bodyKey = bodyField?.jsonName;

  return (body, segments, query) => {
    let message: Message;
    if (body === undefined) {
      message = create(input);
    } else {
      const json = bodyKey === undefined ? body : { [bodyKey]: body };
      try {
        message = fromJson(input, json, readOptions);
      } catch (error) {
        throw bodyError(input, body, bodyField, error);
      }
    }
    let reflected: ReflectMessage | undefined;
    const reflectedMessage = () => {
      reflected ??= reflect(input, message);
      return reflected;
    };
    const violations: FieldViolation[] = [];
    // Path variables set their fields over the body: with `body: "book"` and a path
    // `{book.name=...}`, the name in the path is the one that counts.
    setPathVariables(reflectedMessage, segments, violations);
    if (query !== "") {
      setQueryString(reflectedMessage, query, body !== undefined, violations);
    }
    if (violations.length > 0) {
      throw invalidArgument(violations);
    }
    return message;
  };
}
