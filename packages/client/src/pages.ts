import { clone, type DescField, type DescMethod, type Message, ScalarType } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";

/** The fields through which a method pages (AIP-158). */
export interface PageFields {
  /** The request's `page_token`. */
  readonly pageToken: DescField;
  /** The response's `next_page_token`, "" on the last page. */
  readonly nextPageToken: DescField;
  /** The response's one repeated field: the page's items. */
  readonly items: DescField;
}

// The page size is a number in TypeScript (the 64-bit types are bigints): what the types promise.
const SIZE_TYPES = new Set([
  ScalarType.INT32,
  ScalarType.UINT32,
  ScalarType.SINT32,
  ScalarType.FIXED32,
  ScalarType.SFIXED32,
]);

/**
 * The paging fields of a method, or undefined when it does not page: its request has `page_token`
 * (a string) and `page_size` (a 32-bit integer), its response `next_page_token` (a string) and
 * exactly one repeated field. proto3 `optional` tokens do not count (the types would differ).
 */
export function pageFields(method: DescMethod): PageFields | undefined {
  const scalar = (fields: readonly DescField[], name: string, types: ReadonlySet<ScalarType>) =>
    fields.find(
      (field) =>
        field.name === name &&
        field.fieldKind === "scalar" &&
        types.has(field.scalar) &&
        field.proto.proto3Optional !== true,
    );
  const strings = new Set([ScalarType.STRING]);
  const pageToken = scalar(method.input.fields, "page_token", strings);
  const pageSize = scalar(method.input.fields, "page_size", SIZE_TYPES);
  const nextPageToken = scalar(method.output.fields, "next_page_token", strings);
  const lists = method.output.fields.filter((field) => field.fieldKind === "list");
  const items = lists.length === 1 ? lists[0] : undefined;
  if (pageToken === undefined || pageSize === undefined || nextPageToken === undefined || items === undefined)
    return undefined;
  return { pageToken, nextPageToken, items };
}

/**
 * Every item of every page: calls the method with `request`, then again with each response's
 * `next_page_token`, until a response has none. A page is fetched only when the loop has taken
 * every item of the one before (so a `break` stops the calls).
 */
export async function* pageItems(
  method: DescMethod,
  fields: PageFields,
  request: Message,
  call: (page: Message) => Promise<Message>,
): AsyncGenerator<unknown, void, undefined> {
  let token = reflect(method.input, request).get(fields.pageToken) as string;
  do {
    const page = reflect(method.input, clone(method.input, request));
    page.set(fields.pageToken, token);
    const response = await call(page.message);
    yield* (response as unknown as Record<string, unknown[]>)[fields.items.localName] ?? [];
    token = reflect(method.output, response).get(fields.nextPageToken) as string;
  } while (token !== "");
}
