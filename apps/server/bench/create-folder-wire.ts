// One CreateFolder request, encoded once and sent as often as asked, over each protocol a client may
// use: REST (JSON), Connect with JSON (plain and gzipped) and gRPC (binary protobuf, over h2c).

import http2 from "node:http2";
import { gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import { CreateFolderRequestSchema } from "@folio/proto";

export const PROTOCOLS = ["rest", "connect-json", "connect-json-gzip", "grpc"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** A request ready to send. */
export interface PreparedCall {
  /** The request message's size as encoded (JSON or protobuf), before any compression. */
  readonly bodyBytes: number;
  /** What goes on the wire: the body, compressed or enveloped as the protocol has it. */
  readonly wireBytes: number;
  /** Sends it and reads the whole answer; resolves with its outcome (`400`, `grpc-status 3`). */
  send(): Promise<string>;
}

/** Where and as whom requests are sent; `close` ends the HTTP/2 session gRPC opened. */
export interface Wire {
  prepare(protocol: Protocol, name: string): PreparedCall;
  close(): void;
}

const CONNECT_PATH = "/folio.v1.FolderService/CreateFolder";

/** Requests to the server at `baseUrl` with the bearer `token`. */
export function createFolderWire(baseUrl: string, token: string): Wire {
  const authorization = `Bearer ${token}`;
  let session: http2.ClientHttp2Session | undefined;
  const post = async (path: string, headers: Record<string, string>, body: Buffer) => {
    const response = await fetch(new URL(path, baseUrl), {
      method: "POST",
      headers: { authorization, ...headers },
      // A copy on an ArrayBuffer of its own: fetch's types take no view of a shared buffer.
      body: new Uint8Array(body),
    });
    await response.arrayBuffer();
    return String(response.status);
  };
  const grpc = (body: Buffer) =>
    new Promise<string>((resolve, reject) => {
      session ??= http2.connect(baseUrl);
      const stream = session.request({
        ":method": "POST",
        ":path": CONNECT_PATH,
        "content-type": "application/grpc",
        te: "trailers",
        authorization,
      });
      let status = "no grpc-status";
      stream.on("response", (headers) => {
        if (headers["grpc-status"] !== undefined) status = `grpc-status ${headers["grpc-status"]}`;
      });
      stream.on("trailers", (trailers) => {
        status = `grpc-status ${trailers["grpc-status"]}`;
      });
      stream.on("data", () => {});
      stream.on("end", () => resolve(status));
      stream.on("error", reject);
      stream.end(body);
    });
  return {
    prepare(protocol, name) {
      const json = Buffer.from(JSON.stringify({ name }));
      switch (protocol) {
        case "rest":
          return call(json, json, () =>
            post("/api/v1/folders", { "content-type": "application/json" }, json),
          );
        case "connect-json":
          return call(json, json, () =>
            post(CONNECT_PATH, { "content-type": "application/json", "connect-protocol-version": "1" }, json),
          );
        case "connect-json-gzip": {
          const gzipped = gzipSync(json);
          const headers = {
            "content-type": "application/json",
            "content-encoding": "gzip",
            "connect-protocol-version": "1",
          };
          return call(json, gzipped, () => post(CONNECT_PATH, headers, gzipped));
        }
        case "grpc": {
          const message = toBinary(CreateFolderRequestSchema, create(CreateFolderRequestSchema, { name }));
          // The gRPC envelope: not compressed (0), then the message's length, big-endian.
          const envelope = Buffer.alloc(5);
          envelope.writeUInt32BE(message.byteLength, 1);
          const body = Buffer.concat([envelope, message]);
          return call(Buffer.from(message), body, () => grpc(body));
        }
      }
    },
    close() {
      session?.close();
    },
  };
}

function call(body: Buffer, wire: Buffer, send: () => Promise<string>): PreparedCall {
  return { bodyBytes: body.byteLength, wireBytes: wire.byteLength, send };
}
