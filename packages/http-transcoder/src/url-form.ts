import type { DescField } from "@bufbuild/protobuf";
import { isStringLikeMessage } from "./well-known-types.js";

/**
 * Whether a URL (a path segment or a query parameter) can hold a field's value: a scalar, an enum,
 * a well-known type with a string form, or a list of those (http.proto: "fields which are mapped
 * to URL query parameters must have a primitive type or a repeated primitive type or a
 * non-repeated message type"). Maps and other messages cannot.
 */
export function hasUrlForm(field: DescField): boolean {
  switch (field.fieldKind) {
    case "map":
      return false;
    case "message":
      return isStringLikeMessage(field.message);
    case "list":
      return field.listKind !== "message" || isStringLikeMessage(field.message);
    default:
      return true;
  }
}
