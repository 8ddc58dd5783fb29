import type { DescMethod } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";

/**
 * Whether the Connect protocol lets `method` be called with GET: it declares no side effects
 * (`option idempotency_level = NO_SIDE_EFFECTS`), as connect-es's handlers decide too.
 */
export function allowsGet(method: DescMethod): boolean {
  return method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS;
}

/** A Connect GET's request message, as its query carries it. */
export interface QueryMessage {
  /** The `message` parameter, decoded from the URL. */
  readonly text: string;
  /** `base64=1`: `text` is the message's bytes in base64 (URL-safe or not, padded or not). */
  readonly base64: boolean;
}

/** What the query of a Connect GET says: the codec, the message's coding, the message. */
export interface GetQuery {
  /** `encoding=proto`; false: `encoding=json`. */
  readonly binary: boolean;
  /** The `compression` parameter: the coding of the message; null: none. */
  readonly compression: string | null;
  readonly message: QueryMessage;
}

/**
 * The Connect GET query `?connect=v1&encoding=json|proto[&compression=...][&base64=1]&message=...`
 * (the Connect protocol's unary GET), or undefined for any other query: without `connect=v1`, with
 * another encoding, or with one of these parameters given twice. Those are left to connect-es's
 * handler, which answers them as it always has.
 */
export function getQueryOf(query: string): GetQuery | undefined {
  const params = new URLSearchParams(query);
  for (const name of ["connect", "encoding", "compression", "base64", "message"]) {
    if (params.getAll(name).length > 1) return undefined;
  }
  const encoding = params.get("encoding");
  if (params.get("connect") !== "v1" || (encoding !== "json" && encoding !== "proto")) return undefined;
  return {
    binary: encoding === "proto",
    compression: params.get("compression"),
    // As connect-es: a missing message is the empty one; base64 only with `base64=1`.
    message: { text: params.get("message") ?? "", base64: params.get("base64") === "1" },
  };
}

/**
 * The bytes of a query's message. Base64 that does not decode is the client's fault,
 * `invalid_argument` (connect-es answers it as an internal error).
 */
export function queryMessageBytes(message: QueryMessage): Uint8Array {
  if (!message.base64) return new TextEncoder().encode(message.text);
  try {
    return base64Decode(message.text);
  } catch (error) {
    throw new ConnectError("message: invalid base64", Code.InvalidArgument, undefined, undefined, error);
  }
}
