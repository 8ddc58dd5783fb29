// The boundary of the in-process unary path (src/unary-wire.ts): the requests it serves, and
// those it leaves to connect-es's handlers.

import type { NodeRequest } from "@folio/http-transcoder";
import { describe, expect, it } from "vitest";
import { connectRequestOptions } from "../src/request-options.js";
import { unaryWireOf } from "../src/unary-wire.js";

const { acceptCompression } = connectRequestOptions(1024);

/** A request as the wire reads it: its method, headers, and whether it came over HTTP/2. */
function request(
  headers: Record<string, string | string[]>,
  options: { http2?: boolean; method?: string } = {},
) {
  const req = { method: options.method ?? "POST", headers, ...(options.http2 ? { stream: {} } : {}) };
  return req as unknown as NodeRequest;
}

const wireOf = (req: NodeRequest) => unaryWireOf(req, acceptCompression);

describe("the in-process unary path", () => {
  it("serves the content types clients send, each with its protocol and codec", () => {
    expect(wireOf(request({ "content-type": "application/grpc" }, { http2: true }))).toMatchObject({
      protocol: "grpc",
      binary: true,
      contentType: "application/grpc+proto",
    });
    expect(wireOf(request({ "content-type": "application/grpc+json" }, { http2: true }))).toMatchObject({
      protocol: "grpc",
      binary: false,
    });
    expect(wireOf(request({ "content-type": "application/grpc-web+proto" }))).toMatchObject({
      protocol: "grpcweb",
      binary: true,
    });
    expect(wireOf(request({ "content-type": "application/proto" }))).toMatchObject({
      protocol: "connect",
      binary: true,
    });
    expect(wireOf(request({ "content-type": "application/json" }))).toMatchObject({
      protocol: "connect",
      binary: false,
    });
  });

  it("reads the codings and the deadline of each protocol's headers", () => {
    expect(
      wireOf(
        request(
          { "content-type": "application/grpc", "grpc-encoding": "gzip", "grpc-timeout": "5S" },
          { http2: true },
        ),
      ),
    ).toMatchObject({
      requestCompression: { name: "gzip" },
      responseCompression: { name: "gzip" },
      timeoutMs: 5000,
    });
    expect(
      wireOf(
        request({
          "content-type": "application/json",
          "accept-encoding": "br, gzip",
          "connect-timeout-ms": "250",
        }),
      ),
    ).toMatchObject({ requestCompression: null, responseCompression: { name: "br" }, timeoutMs: 250 });
  });

  it("leaves everything else to connect-es's handlers", () => {
    const left = [
      request({ "content-type": "application/grpc" }), // gRPC over HTTP/1.1
      request({ "content-type": "application/json" }, { method: "GET" }), // Connect GET
      request({ "content-type": "application/json; charset=utf-8" }),
      request({ "content-type": "application/connect+proto" }), // a stream's
      request({ "content-type": "application/grpc-web-text" }),
      request({ "content-type": "text/plain" }),
      request({ "content-type": "application/proto", "content-encoding": "snappy" }),
      request({ "content-type": "application/grpc", "grpc-timeout": "soon" }, { http2: true }),
      request({ "content-type": "application/proto", "connect-timeout-ms": "-1" }),
      request({ "content-type": "application/grpc", "grpc-encoding": ["gzip", "br"] }, { http2: true }),
    ];
    for (const req of left) expect(wireOf(req), JSON.stringify(req.headers)).toBeUndefined();
  });
});

describe("Connect's GET on the in-process path", () => {
  /** A GET of `query`, as a Connect client sends it (no body, no content type). */
  const get = (query: string, headers: Record<string, string> = {}) =>
    Object.assign(request(headers, { method: "GET" }), { url: `/acme.v1.Library/GetBook?${query}` });
  const getWireOf = (req: NodeRequest) => unaryWireOf(req, acceptCompression, true);

  it("serves the query's message, codec and coding, for a method without side effects", () => {
    const message = encodeURIComponent('{"id":"b 1"}');
    expect(
      getWireOf(get(`connect=v1&encoding=json&message=${message}`, { "connect-timeout-ms": "250" })),
    ).toMatchObject({
      protocol: "connect",
      binary: false,
      contentType: "application/json",
      requestCompression: null,
      timeoutMs: 250,
      queryMessage: { text: '{"id":"b 1"}', base64: false },
    });
    expect(
      getWireOf(
        get("connect=v1&encoding=proto&base64=1&compression=gzip&message=H4sI", { "accept-encoding": "br" }),
      ),
    ).toMatchObject({
      binary: true,
      contentType: "application/proto",
      requestCompression: { name: "gzip" },
      responseCompression: { name: "br" },
      queryMessage: { text: "H4sI", base64: true },
    });
  });

  it("leaves to connect-es a GET of a method with side effects, and any other query", () => {
    expect(
      unaryWireOf(get("connect=v1&encoding=json&message=%7B%7D"), acceptCompression, false),
    ).toBeUndefined();
    const left = [
      "encoding=json&message=%7B%7D", // no connect=v1
      "connect=v2&encoding=json&message=%7B%7D",
      "connect=v1&encoding=xml&message=%7B%7D",
      "connect=v1&encoding=json&encoding=proto&message=%7B%7D",
      "connect=v1&encoding=json&compression=snappy&message=%7B%7D",
    ];
    for (const query of left) expect(getWireOf(get(query)), query).toBeUndefined();
    expect(getWireOf(get("connect=v1&encoding=json", { "connect-timeout-ms": "soon" }))).toBeUndefined();
  });
});
