import type { NodeRequest } from "@folio/http-transcoder";
import { splitRequestTarget } from "@folio/http-transcoder";
import {
  type Compression,
  compressionNegotiate,
  contentTypeUnaryJson,
  contentTypeUnaryProto,
} from "./connect-internals.js";
import { wireTypeOf } from "./detect-protocol.js";
import { getQueryOf, type QueryMessage } from "./protocol-connect/get-request.js";
import { connectWireHeaders } from "./protocol-connect/headers.js";
import { grpcWireHeaders } from "./protocol-grpc/headers.js";
import { grpcWebWireHeaders } from "./protocol-grpc-web/headers.js";
import type { WireHeaders, WireProtocol } from "./wire-protocol.js";

/** How one unary request is read and answered: its protocol, codec, codings and deadline. */
export interface UnaryWire {
  readonly protocol: WireProtocol;
  /** Binary protobuf; false: JSON. */
  readonly binary: boolean;
  /** The content type of the answer. */
  readonly contentType: string;
  /** The coding of the request message; null: none. */
  readonly requestCompression: Compression | null;
  /** The coding of the answer (when it is large enough); null: none. */
  readonly responseCompression: Compression | null;
  /** The call's deadline from now; undefined: none. */
  readonly timeoutMs: number | undefined;
  /** A Connect GET's message, carried in its query; undefined: the message is the body. */
  readonly queryMessage?: QueryMessage | undefined;
}

/**
 * The boundary of the in-process path: the wire of a unary request it serves, or undefined for every
 * request that connect-es's handler answers as before (a method other than POST, or GET where
 * `getAllowed` does not say the method may be called with Connect's GET, an unusual content type
 * or query, an unknown coding, a malformed timeout: whatever connect-es refuses, it refuses
 * itself). Streaming methods never get here.
 */
export function unaryWireOf(
  req: NodeRequest,
  acceptCompression: readonly Compression[],
  getAllowed = false,
): UnaryWire | undefined {
  if (req.method === "GET") return getAllowed ? connectGetWireOf(req, acceptCompression) : undefined;
  if (req.method !== "POST") return undefined;
  const type = wireTypeOf(req.headers["content-type"]);
  if (type === undefined || (type.http2 && !("stream" in req))) return undefined;
  const names = HEADERS[type.protocol];
  const requested = headerOf(req, names.encoding);
  const accepted = headerOf(req, names.acceptEncoding);
  const rawTimeout = headerOf(req, names.timeout);
  if (requested === undefined || accepted === undefined || rawTimeout === undefined) return undefined;
  const compression = compressionNegotiate(
    acceptCompression as Compression[],
    requested,
    accepted,
    names.acceptEncoding,
  );
  if (compression.error !== undefined) return undefined;
  const timeout = names.parseTimeout(rawTimeout, Number.MAX_SAFE_INTEGER);
  if (timeout.error !== undefined) return undefined;
  return {
    protocol: type.protocol,
    binary: type.binary,
    contentType: type.contentType,
    requestCompression: compression.request,
    responseCompression: compression.response,
    timeoutMs: timeout.timeoutMs,
  };
}

/**
 * The wire of a Connect GET (a method without side effects): codec and message from the query
 * (protocol-connect/get-request.ts), the message's coding from its `compression` parameter, the
 * answer's coding and the deadline from the headers, as for a POST.
 */
function connectGetWireOf(
  req: NodeRequest,
  acceptCompression: readonly Compression[],
): UnaryWire | undefined {
  const query = getQueryOf(splitRequestTarget(req.url).query);
  if (query === undefined) return undefined;
  const names = HEADERS.connect;
  const accepted = headerOf(req, names.acceptEncoding);
  const rawTimeout = headerOf(req, names.timeout);
  if (accepted === undefined || rawTimeout === undefined) return undefined;
  const compression = compressionNegotiate(
    acceptCompression as Compression[],
    query.compression,
    accepted,
    names.acceptEncoding,
  );
  if (compression.error !== undefined) return undefined;
  const timeout = names.parseTimeout(rawTimeout, Number.MAX_SAFE_INTEGER);
  if (timeout.error !== undefined) return undefined;
  return {
    protocol: "connect",
    binary: query.binary,
    contentType: query.binary ? contentTypeUnaryProto : contentTypeUnaryJson,
    requestCompression: compression.request,
    responseCompression: compression.response,
    timeoutMs: timeout.timeoutMs,
    queryMessage: query.message,
  };
}

/** The headers each protocol reads its codings and deadline from. */
const HEADERS: Readonly<Record<WireProtocol, WireHeaders>> = {
  connect: connectWireHeaders,
  grpc: grpcWireHeaders,
  grpcweb: grpcWebWireHeaders,
};

/** A request header's value, null when absent, undefined when repeated (left to connect-es). */
function headerOf(req: NodeRequest, name: string): string | null | undefined {
  const value = req.headers[name];
  if (value === undefined) return null;
  return typeof value === "string" ? value : undefined;
}
