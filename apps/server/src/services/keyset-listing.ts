import type { DescField, DescMethodUnary, MessageShape } from "@bufbuild/protobuf";
import { ScalarType } from "@bufbuild/protobuf";
import { invalidArgument } from "@folio/googleapis";
import { ruleDescription } from "@folio/proto";
import { servedPageSize } from "./page-size.js";
import type { PageCursor, PageTokens } from "./page-token.js";

/** The type of each field of a sort key, in the listing's order: `{ name: "string", id: "string" }`. */
export type SortKeyFields = Readonly<Record<string, "string" | "number">>;

/** A sort key's values, by field. */
export type SortKey<F extends SortKeyFields> = {
  readonly [N in keyof F]: F[N] extends "string" ? string : number;
};

/** One page a request asks for. */
export interface PageRequest<K> {
  /** Start after the entry with this key; undefined: from the first. */
  readonly after: K | undefined;
  /** How many rows to read: one more than the page, which tells whether another page follows. */
  readonly limit: number;
  /** The page of `rows` (read with `limit`), and the next page's token: "" on the last page. */
  answer<R extends K>(rows: readonly R[]): { readonly page: R[]; readonly nextPageToken: string };
}

/** A listing paged by key (AIP-158): what one of its requests asks for. */
export interface KeysetListing<M extends DescMethodUnary, K> {
  /**
   * The page `request` asks for in the caller's org; `invalid_argument` naming the page token
   * when it is not a token of this listing for that org and the request's filters.
   */
  pageOf(request: MessageShape<M["input"]>, orgId: string): PageRequest<K>;
}

/** How a listing binds its tokens. */
export interface KeysetListingOptions {
  /**
   * Bind tokens to the org and the filters only, not to the listing's name: the binding
   * ListProjects had before listings were generic, kept so that tokens stay valid across a rolling
   * upgrade (an instance of either release reads the other's). Safe beside named bindings: those
   * begin with a listing's name, these with an org id, so no two listings share a binding.
   */
  readonly unnamedBinding?: boolean;
}

/**
 * The paging of `method`, a listing sorted by `key` (whose last field is unique, so the order is
 * total). Its request has AIP-158's `page_size` and `page_token`; every other field of it is a
 * filter. A token is sealed with `tokens`, bound to the method, the caller's org and every filter's
 * value, so a token of another listing, org, or filter (another parent, city...) is refused, and a
 * filter added to the request binds tokens without more code. The page size follows page-size.ts.
 * Throws at start-up for a method whose request does not fit.
 */
export function keysetListing<M extends DescMethodUnary, const F extends SortKeyFields>(
  method: M,
  key: F,
  tokens: PageTokens,
  options: KeysetListingOptions = {},
): KeysetListing<M, SortKey<F>> {
  type K = SortKey<F>;
  const fields = method.input.fields;
  const pageSize = fields.find((field) => field.name === "page_size");
  const pageToken = fields.find((field) => field.name === "page_token");
  if (!isScalar(pageSize, ScalarType.INT32) || !isScalar(pageToken, ScalarType.STRING)) {
    throw new Error(
      `${method.parent.typeName}.${method.name} is no AIP-158 listing: no int32 page_size or string page_token`,
    );
  }
  const filters = fields.filter((field) => field !== pageSize && field !== pageToken);
  for (const filter of filters) {
    if (filter.fieldKind !== "scalar" && filter.fieldKind !== "enum") {
      throw new Error(
        `${method.input.typeName}.${filter.name}: a listing's filters are scalar or enum fields`,
      );
    }
  }
  const listing = `${method.parent.typeName}/${method.name}`;
  const keyFields = Object.keys(key) as (keyof F & string)[];
  // The sentence the proto gives the field's own rule, so that every refusal of a token reads alike.
  const refusal = [
    {
      field: pageToken.jsonName,
      description: ruleDescription(pageToken) ?? "is not a token of this listing",
    },
  ];

  const prefix = options.unnamedBinding === true ? [] : [listing];
  /** The associated data of the request's tokens: the listing, the org, each filter's value. */
  const bindingOf = (request: Record<string, unknown>, orgId: string) =>
    JSON.stringify([...prefix, orgId, ...filters.map((filter) => jsonValue(request[filter.localName]))]);

  /** The sort key a cursor holds, when it has the key's fields with their types. */
  const keyOf = (cursor: PageCursor): K | undefined => {
    if (cursor.length !== keyFields.length) return undefined;
    const after: Record<string, string | number> = {};
    for (const [index, field] of keyFields.entries()) {
      const value = cursor[index];
      if (value === undefined || typeof value !== key[field]) return undefined;
      after[field] = value;
    }
    return after as K;
  };

  return {
    pageOf(request, orgId) {
      const fieldsOf = request as unknown as Record<string, unknown>;
      const size = servedPageSize(fieldsOf[pageSize.localName] as number);
      const binding = bindingOf(fieldsOf, orgId);
      const token = fieldsOf[pageToken.localName] as string;
      let after: K | undefined;
      if (token !== "") {
        const cursor = tokens.decode(token, binding);
        after = cursor === undefined ? undefined : keyOf(cursor);
        if (after === undefined) throw invalidArgument(refusal);
      }
      return {
        after,
        limit: size + 1,
        answer(rows) {
          const page = rows.slice(0, size);
          const last = page[page.length - 1];
          const nextPageToken =
            rows.length > size && last !== undefined
              ? tokens.encode(
                  keyFields.map((field) => last[field] as string | number),
                  binding,
                )
              : "";
          return { page, nextPageToken };
        },
      };
    },
  };
}

/** Whether a field is a singular scalar of `type`. */
function isScalar(
  field: DescField | undefined,
  type: ScalarType,
): field is DescField & { fieldKind: "scalar" } {
  return field?.fieldKind === "scalar" && field.scalar === type;
}

/** A filter's value as JSON can hold it: an unset optional field is null, a 64-bit integer a string. */
function jsonValue(value: unknown): string | number | boolean | null {
  if (value === undefined) return null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  return value as string | number | boolean;
}
