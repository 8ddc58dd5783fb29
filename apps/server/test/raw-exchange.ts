// A request as a client sends it, over HTTP/1.1 (fetch) or HTTP/2 (node:http2), with its answer
// read whole, and the code a client reads off a REST, Connect, gRPC or gRPC-Web answer.
import http2 from "node:http2";

/** The HTTP version a request goes over. */
export type HttpVersion = "1.1" | "2";

/** A request as the client sends it. */
export interface Sent {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: Uint8Array | string;
}

/** What came back, read whole: HTTP/2 trailers apart (gRPC-Web's trailers are in its body). */
export interface Received {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly trailers: Record<string, unknown>;
  readonly body: Buffer;
}

/** Sends a request over HTTP/1.1 (fetch) or HTTP/2 (node:http2), and reads its answer whole. */
export async function send(baseUrl: string, version: HttpVersion, request: Sent): Promise<Received> {
  if (version === "1.1") {
    const response = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: typeof request.body === "string" ? request.body : request.body && new Uint8Array(request.body),
    });
    const body = Buffer.from(await response.arrayBuffer());
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: response.status, headers, trailers: {}, body };
  }
  const session = http2.connect(baseUrl);
  try {
    return await new Promise<Received>((resolve, reject) => {
      session.once("error", reject);
      const stream = session.request({
        ":method": request.method,
        ":path": request.path,
        ...request.headers,
      });
      const chunks: Buffer[] = [];
      let headers: Record<string, unknown> = {};
      let trailers: Record<string, unknown> = {};
      stream.on("response", (h) => {
        headers = h;
      });
      stream.on("trailers", (t) => {
        trailers = t;
      });
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.once("error", reject);
      stream.once("close", () =>
        resolve({ status: Number(headers[":status"]), headers, trailers, body: Buffer.concat(chunks) }),
      );
      stream.end(request.body === undefined ? undefined : Buffer.from(request.body));
    });
  } finally {
    session.close();
  }
}

/** gRPC's and gRPC-Web's length-prefixed message. */
export function envelope(payload: Uint8Array): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(payload.length, 1);
  return Buffer.concat([prefix, payload]);
}

/** gRPC's status numbers by Connect's names, for the codes of early refusals and successes. */
const GRPC_CODES: Readonly<Record<string, string>> = {
  "0": "ok",
  "3": "invalid_argument",
  "8": "resource_exhausted",
  "12": "unimplemented",
  "16": "unauthenticated",
};

/** The code a gRPC or gRPC-Web answer carries: in HTTP/2 trailers, headers, or gRPC-Web's trailer frame. */
export function grpcCode(answer: Received): string | undefined {
  let status = answer.trailers["grpc-status"] ?? answer.headers["grpc-status"];
  for (let offset = 0; offset + 5 <= answer.body.length; ) {
    const length = answer.body.readUInt32BE(offset + 1);
    if (answer.body.readUInt8(offset) & 0x80) {
      status = /grpc-status:\s*(\d+)/.exec(
        answer.body.subarray(offset + 5, offset + 5 + length).toString(),
      )?.[1];
    }
    offset += 5 + length;
  }
  return status === undefined ? undefined : (GRPC_CODES[String(status)] ?? `grpc-${String(status)}`);
}

/** The code a REST or Connect answer carries: `ok` for a success, else its JSON error's `code`. */
export function jsonCode(answer: Received, rest: boolean): string | undefined {
  if (answer.status < 300) return "ok";
  try {
    const body = JSON.parse(answer.body.toString()) as { code?: string; error?: { code?: string } };
    return rest ? body.error?.code : body.code;
  } catch {
    return undefined;
  }
}
