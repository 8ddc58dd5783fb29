import http2 from "node:http2";
import { grpcFrame } from "./protobuf.ts";

/** What one gRPC call got back. */
export interface GrpcReply {
  /** `grpc-status` from the trailers, or from the headers of a trailers-only response. */
  readonly grpcStatus: string | undefined;
  readonly grpcMessage: string | undefined;
  /** The response headers and trailers with text values (`www-authenticate`, `x-request-id`, ...). */
  readonly metadata: Readonly<Record<string, string>>;
  /** `grpc-status-details-bin`, decoded from base64: a google.rpc.Status. */
  readonly statusDetails: Uint8Array | undefined;
  /** Bytes of DATA of the response: every length-prefixed message with its 5-byte prefix. */
  readonly dataBytes: number;
  /** The response messages, without their prefixes. */
  readonly messages: readonly Uint8Array[];
}

/** One unary gRPC call over h2c on a connection of its own, for checks rather than load. */
export async function grpcUnary(
  baseUrl: string,
  path: string,
  headers: Readonly<Record<string, string>>,
  message: Uint8Array,
): Promise<GrpcReply> {
  const session = http2.connect(baseUrl);
  try {
    return await new Promise((resolve, reject) => {
      let grpcStatus: string | undefined;
      let grpcMessage: string | undefined;
      let statusDetails: Uint8Array | undefined;
      const metadata: Record<string, string> = {};
      const chunks: Buffer[] = [];
      const read = (fields: http2.IncomingHttpHeaders) => {
        for (const [name, value] of Object.entries(fields))
          if (typeof value === "string") metadata[name] = value;
        if (typeof fields["grpc-status"] === "string") grpcStatus = fields["grpc-status"];
        if (typeof fields["grpc-message"] === "string")
          grpcMessage = decodeURIComponent(fields["grpc-message"]);
        const details = fields["grpc-status-details-bin"];
        if (typeof details === "string") statusDetails = Buffer.from(details, "base64");
      };
      const stream = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
        ...headers,
      });
      session.once("error", reject);
      stream.on("response", read);
      stream.on("trailers", read);
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", reject);
      stream.on("close", () => {
        const data = Buffer.concat(chunks);
        resolve({
          grpcStatus,
          grpcMessage,
          metadata,
          statusDetails,
          dataBytes: data.byteLength,
          messages: unframe(data).messages,
        });
      });
      stream.end(grpcFrame(message));
    });
  } finally {
    session.close();
  }
}

/**
 * The length-prefixed messages of a gRPC or gRPC-Web body, and (gRPC-Web) the text of its trailer
 * frame (flag 0x80). Compressed frames are not expected: no request asks for compression.
 */
export function unframe(body: Uint8Array): { messages: Uint8Array[]; trailer: string | undefined } {
  const messages: Uint8Array[] = [];
  let trailer: string | undefined;
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  for (let at = 0; at + 5 <= body.byteLength; ) {
    const flags = body[at] as number;
    const length = view.getUint32(at + 1);
    const payload = body.subarray(at + 5, at + 5 + length);
    if ((flags & 0x80) !== 0) trailer = Buffer.from(payload).toString("latin1");
    else if ((flags & 0x01) !== 0) throw new Error("a compressed gRPC frame, which no request asked for");
    else messages.push(payload);
    at += 5 + length;
  }
  return { messages, trailer };
}
