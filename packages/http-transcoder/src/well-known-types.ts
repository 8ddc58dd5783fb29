import type { DescMessage } from "@bufbuild/protobuf";

/**
 * Well-known types whose JSON form is a single string or scalar (the protobuf JSON mapping,
 * https://protobuf.dev/programming-guides/json/): they can be written in a path segment or a query
 * parameter as that form, e.g. `?readTime=2024-01-01T00:00:00Z`, `?updateMask=title,author.name`.
 *
 * @private
 */
const stringLikeMessages = new Set([
  "google.protobuf.Timestamp",
  "google.protobuf.Duration",
  "google.protobuf.FieldMask",
  "google.protobuf.DoubleValue",
  "google.protobuf.FloatValue",
  "google.protobuf.Int64Value",
  "google.protobuf.UInt64Value",
  "google.protobuf.Int32Value",
  "google.protobuf.UInt32Value",
  "google.protobuf.BoolValue",
  "google.protobuf.StringValue",
  "google.protobuf.BytesValue",
]);

/** Whether the message is a well-known type written as one string in a URL (path or query). */
export function isStringLikeMessage(message: DescMessage): boolean {
  return stringLikeMessages.has(message.typeName);
}
