// Calls with request bodies no well-behaved client sends (gzip bombs, truncated messages, invalid
// UTF-8), over each RPC protocol, reading the outcome off the wire.
import http2 from "node:http2";
import { Code } from "@connectrpc/connect";

export const RAW_PROTOCOLS = ["connect", "grpc", "grpc-web"] as const;
export type RawProtocol = (typeof RAW_PROTOCOLS)[number];

/** What the server answered: a Connect code name ("ok" on success) and its message. */
export interface RawOutcome {
  readonly code: string;
  readonly message: string;
}

/** Options of {@link rawCall}. */
export interface RawCallOptions {
  readonly token?: string;
  /** The body is JSON (Connect only); binary protobuf by default. */
  readonly json?: boolean;
  /** The body is gzip-compressed. */
  readonly gzip?: boolean;
}

function codeName(code: number): string {
  if (code === 0) return "ok";
  const name = Code[code] ?? "Unknown";
  return name.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? c.toLowerCase() : `_${c.toLowerCase()}`));
}

/** gRPC's length-prefixed message (flag 1: compressed). */
function envelope(body: Uint8Array, compressed: boolean): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(compressed ? 1 : 0, 0);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** Calls `procedure` ("/folio.v1.FolderService/CreateFolder") with `body` as its request message. */
export async function rawCall(
  baseUrl: string,
  protocol: RawProtocol,
  procedure: string,
  body: Uint8Array,
  options: RawCallOptions = {},
): Promise<RawOutcome> {
  const auth: Record<string, string> =
    options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  switch (protocol) {
    case "connect": {
      const response = await fetch(`${baseUrl}${procedure}`, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": options.json ? "application/json" : "application/proto",
          "connect-protocol-version": "1",
          ...(options.gzip ? { "content-encoding": "gzip" } : {}),
        },
        // A copy on an ArrayBuffer of its own: fetch's types take no view of a shared buffer.
        body: new Uint8Array(body),
      });
      const text = await response.text();
      if (response.status === 200) return { code: "ok", message: "" };
      const error = JSON.parse(text) as { code: string; message?: string };
      return { code: error.code, message: error.message ?? "" };
    }
    case "grpc-web": {
      const response = await fetch(`${baseUrl}${procedure}`, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/grpc-web+proto",
          "x-grpc-web": "1",
          ...(options.gzip ? { "grpc-encoding": "gzip" } : {}),
        },
        body: new Uint8Array(envelope(body, options.gzip === true)),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      // Trailers come as headers (trailers-only) or as the body's last, flagged, frame.
      let trailers = new Headers(response.headers);
      for (let offset = 0; offset + 5 <= bytes.length; ) {
        const length = bytes.readUInt32BE(offset + 1);
        if (bytes.readUInt8(offset) & 0x80) {
          trailers = new Headers(
            bytes
              .subarray(offset + 5, offset + 5 + length)
              .toString()
              .split("\r\n")
              .filter((line) => line.includes(":"))
              .map((line): [string, string] => [
                line.slice(0, line.indexOf(":")).trim(),
                line.slice(line.indexOf(":") + 1).trim(),
              ]),
          );
        }
        offset += 5 + length;
      }
      return {
        code: codeName(Number(trailers.get("grpc-status") ?? 0)),
        message: decodeURIComponent(trailers.get("grpc-message") ?? ""),
      };
    }
    case "grpc": {
      const session = http2.connect(baseUrl);
      try {
        return await new Promise<RawOutcome>((resolve, reject) => {
          session.once("error", reject);
          const stream = session.request({
            ":method": "POST",
            ":path": procedure,
            "content-type": "application/grpc",
            te: "trailers",
            ...auth,
            ...(options.gzip ? { "grpc-encoding": "gzip" } : {}),
          });
          let status: string | undefined;
          let message = "";
          // The outcome is known with the trailers; a server that refused the request early need
          // not read the rest of it, so the stream may stay open until the client ends it.
          const take = (headers: http2.IncomingHttpHeaders) => {
            if (headers["grpc-status"] !== undefined) {
              status = String(headers["grpc-status"]);
              message = decodeURIComponent(String(headers["grpc-message"] ?? ""));
              resolve({ code: codeName(Number(status)), message });
            }
          };
          stream.on("response", take);
          stream.on("trailers", take);
          stream.on("error", reject);
          stream.resume();
          stream.on("close", () =>
            status === undefined
              ? reject(new Error(`stream closed without grpc-status (rst ${stream.rstCode})`))
              : resolve({ code: codeName(Number(status)), message }),
          );
          stream.end(envelope(body, options.gzip === true));
        });
      } finally {
        session.destroy();
      }
    }
  }
}
