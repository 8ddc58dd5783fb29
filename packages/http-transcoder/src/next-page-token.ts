import { type DescField, ScalarType } from "@bufbuild/protobuf";
import type { HttpRoute } from "./http-route.js";

/**
 * The `next_page_token` field of a paginated GET route's response (AIP-158), which the
 * `pageLinks` option sends as a `Link` header; undefined for a route that is not paginated.
 */
export function nextPageTokenField(route: HttpRoute): DescField | undefined {
  if (route.httpMethod !== "GET" || route.responseBodyField !== undefined) return undefined;
  const pageToken = route.method.input.fields.find((f) => f.name === "page_token");
  const next = route.method.output.fields.find((f) => f.name === "next_page_token");
  const isString = (f: DescField | undefined) => f?.fieldKind === "scalar" && f.scalar === ScalarType.STRING;
  return isString(pageToken) && isString(next) ? next : undefined;
}
