import { type DescMethod, getOption } from "@bufbuild/protobuf";
import { http } from "@folio/googleapis";

/** Whether a method only reads: its REST route is a GET (`google.api.http`). */
export function isRead(method: DescMethod): boolean {
  return getOption(method, http).pattern.case === "get";
}

/** Whether a method takes an idempotency key (AIP-155 `request_id`), which makes a retry of it safe. */
export function takesRequestId(method: DescMethod): boolean {
  return method.input.fields.some((field) => field.localName === "requestId" && field.fieldKind === "scalar");
}
