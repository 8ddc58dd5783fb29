// What Folio relies on in connect-es's protocol internals (src/connect-internals.ts), pinned: each
// test fails if a connect-es upgrade changes a behaviour Folio's in-process calls, REST and code
// table depend on.
import { create, createFileRegistry, type DescService } from "@bufbuild/protobuf";
import {
  FileDescriptorProtoSchema,
  file_google_protobuf_wrappers,
  type StringValue,
  StringValueSchema,
} from "@bufbuild/protobuf/wkt";
import {
  Code,
  ConnectError,
  createContextValues,
  createHandlerContext,
  createMethodImplSpec,
  type Interceptor,
  type MethodImplSpec,
} from "@connectrpc/connect";
import { compressionGzip } from "@connectrpc/connect-node";
import { clientCodeFromHttpStatus, codeFromString, codeToHttpStatus, codeToString } from "@folio/googleapis";
import { describe, expect, it } from "vitest";
import {
  compressionNegotiate,
  connectCodeFromHttpStatus,
  connectCodeFromString,
  connectCodeToHttpStatus,
  connectCodeToString,
  connectHeaderTimeout,
  contentTypeUnaryJson,
  contentTypeUnaryProto,
  createAsyncIterable,
  createMethodSerializationLookup,
  encodeEnvelope,
  endStreamFlag,
  endStreamFromJson,
  envelopeCompress,
  errorFromJsonBytes,
  errorToJsonBytes,
  grpcHeaderAcceptEncoding,
  grpcHeaderEncoding,
  grpcHeaderTimeout,
  grpcStatusOk,
  headerUnaryAcceptEncoding,
  headerUnaryEncoding,
  headerUnaryTrailerPrefix,
  invokeUnaryImplementation,
  mergeNonProtocolHeaders,
  parseConnectTimeout,
  parseGrpcTimeout,
  pipe,
  readAllBytes,
  setGrpcTrailerStatus,
  setGrpcWebTrailerStatus,
  trailerFlag,
  trailerSerialize,
  transformInvokeImplementation,
  transformSplitEnvelope,
  validateReadWriteMaxBytes,
} from "../src/connect-internals.js";

/** A service `t.Echo` with a unary and a server-streaming method of `google.protobuf.StringValue`. */
const service: DescService = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "t/echo.proto",
    package: "t",
    syntax: "proto3",
    dependency: ["google/protobuf/wrappers.proto"],
    service: [
      {
        name: "Echo",
        method: [
          {
            name: "Say",
            inputType: ".google.protobuf.StringValue",
            outputType: ".google.protobuf.StringValue",
          },
          {
            name: "Repeat",
            inputType: ".google.protobuf.StringValue",
            outputType: ".google.protobuf.StringValue",
            serverStreaming: true,
          },
        ],
      },
    ],
  }),
  () => file_google_protobuf_wrappers,
).getService("t.Echo") as DescService;
const [say, repeat] = service.methods as [DescService["methods"][number], DescService["methods"][number]];

const value = (text: string): StringValue => create(StringValueSchema, { value: text });

function contextOf(method = say) {
  return createHandlerContext({
    service,
    method,
    protocolName: "connect",
    requestMethod: "POST",
    url: "http://localhost/t.Echo/Say",
    contextValues: createContextValues(),
  });
}

describe("the code names and statuses (Folio's table in @folio/googleapis)", () => {
  const codes = Object.values(Code).filter((code): code is Code => typeof code === "number");

  it("names every code and answers every code with the status connect-es's handlers use", () => {
    for (const code of codes) {
      expect(codeToString(code)).toBe(connectCodeToString(code));
      expect(codeFromString(codeToString(code))).toBe(connectCodeFromString(connectCodeToString(code)));
      expect(codeToHttpStatus(code)).toBe(connectCodeToHttpStatus(code));
    }
    expect(codeFromString("no_such_code")).toBe(connectCodeFromString("no_such_code"));
  });

  it("reads a status answered without a code as connect-es's clients do", () => {
    for (let status = 100; status < 600; status++) {
      expect(clientCodeFromHttpStatus(status)).toBe(connectCodeFromHttpStatus(status));
    }
  });
});

describe("the request headers, content types and timeouts the in-process path reads", () => {
  it("names the headers of codings and deadlines, and Connect's unary content types", () => {
    expect([headerUnaryEncoding, headerUnaryAcceptEncoding, connectHeaderTimeout]).toEqual([
      "Content-Encoding",
      "Accept-Encoding",
      "Connect-Timeout-Ms",
    ]);
    expect([grpcHeaderEncoding, grpcHeaderAcceptEncoding, grpcHeaderTimeout]).toEqual([
      "Grpc-Encoding",
      "Grpc-Accept-Encoding",
      "Grpc-Timeout",
    ]);
    expect([contentTypeUnaryProto, contentTypeUnaryJson, headerUnaryTrailerPrefix]).toEqual([
      "application/proto",
      "application/json",
      "Trailer-",
    ]);
  });

  it("parses a timeout into milliseconds, none as undefined, and refuses a malformed one", () => {
    expect(parseConnectTimeout("1500", Number.MAX_SAFE_INTEGER)).toEqual({ timeoutMs: 1500 });
    expect(parseConnectTimeout(null, Number.MAX_SAFE_INTEGER).timeoutMs).toBeUndefined();
    expect(parseConnectTimeout("soon", Number.MAX_SAFE_INTEGER).error).toBeInstanceOf(ConnectError);
    expect(parseGrpcTimeout("2S", Number.MAX_SAFE_INTEGER)).toEqual({ timeoutMs: 2000 });
    expect(parseGrpcTimeout("250m", Number.MAX_SAFE_INTEGER)).toEqual({ timeoutMs: 250 });
    expect(parseGrpcTimeout(null, Number.MAX_SAFE_INTEGER).timeoutMs).toBeUndefined();
    expect(parseGrpcTimeout("2 seconds", Number.MAX_SAFE_INTEGER).error).toBeInstanceOf(ConnectError);
  });

  it("negotiates a request coding it knows and an answer coding the client accepts", () => {
    const accepted = compressionNegotiate([compressionGzip], "gzip", "br, gzip", "Accept-Encoding");
    expect(accepted.request?.name).toBe("gzip");
    expect(accepted.response?.name).toBe("gzip");
    expect(accepted.error).toBeUndefined();
    const none = compressionNegotiate([compressionGzip], null, null, "Accept-Encoding");
    expect([none.request, none.response, none.error]).toEqual([null, null, undefined]);
    const unknown = compressionNegotiate([compressionGzip], "snappy", null, "Accept-Encoding");
    expect(unknown.error?.code).toBe(Code.Unimplemented);
  });

  it("reads as much as asked, writes up to 4 GiB, and compresses from 1 KiB", () => {
    expect(validateReadWriteMaxBytes(1024, undefined, undefined)).toEqual({
      readMaxBytes: 1024,
      writeMaxBytes: 0xffffffff,
      compressMinBytes: 1024,
    });
  });
});

describe("the request message", () => {
  const limits = validateReadWriteMaxBytes(16, undefined, undefined);
  const lookup = createMethodSerializationLookup(say, undefined, { ignoreUnknownFields: false }, limits);

  it("parses binary and JSON, and refuses a message over the limit with resource_exhausted", () => {
    expect(lookup.getI(true).parse(new Uint8Array([0x0a, 0x02, 0x68, 0x69]))).toMatchObject({ value: "hi" });
    expect(lookup.getI(false).parse(new TextEncoder().encode('"hi"'))).toMatchObject({ value: "hi" });
    expect(() => lookup.getI(true).parse(new Uint8Array(17))).toThrow(
      expect.objectContaining({ code: Code.ResourceExhausted }),
    );
  });

  // Binary: by the pnpm patch of connect-es's serialization module (pnpm-workspace.yaml says why);
  // this fails without it. When an upgrade no longer takes the patch, this says whether connect-es
  // now answers invalid_argument itself, and the patch can go.
  it("fails a request message that does not parse with invalid_argument, binary as JSON", () => {
    expect(() => lookup.getI(true).parse(new Uint8Array([0x0a, 0x14, 0x61]))).toThrow(
      expect.objectContaining({ code: Code.InvalidArgument }),
    );
    expect(() => lookup.getI(false).parse(new TextEncoder().encode("{"))).toThrow(
      expect.objectContaining({ code: Code.InvalidArgument }),
    );
  });
});

describe("the call, through the interceptors", () => {
  const seen: string[] = [];
  const interceptor: Interceptor = (next) => async (request) => {
    seen.push(`${request.method.name} ${request.stream ? "stream" : "unary"}`);
    return next(request);
  };

  it("calls a unary implementation with the message, inside the interceptors", async () => {
    seen.length = 0;
    // The descriptors are built at run time, untyped: the implementations are typed by hand.
    const spec = createMethodImplSpec(say, ((request: StringValue) => value(`${request.value}!`)) as never);
    const output = await invokeUnaryImplementation(
      spec as MethodImplSpec & { kind: "unary" },
      contextOf(),
      value("hi"),
      [interceptor],
    );
    expect((output as StringValue).value).toBe("hi!");
    expect(seen).toEqual(["Say unary"]);
  });

  it("calls a server-streaming implementation, its messages as it yields them", async () => {
    seen.length = 0;
    const spec = createMethodImplSpec(repeat, async function* (request: StringValue) {
      yield value(request.value);
      yield value(request.value);
    } as never);
    const invoke = transformInvokeImplementation(spec, contextOf(repeat), [interceptor]);
    const out: string[] = [];
    for await (const message of invoke(createAsyncIterable([value("a")]))) {
      out.push((message as StringValue).value);
    }
    expect(out).toEqual(["a", "a"]);
    expect(seen).toEqual(["Repeat stream"]);
  });
});

describe("the answer's framing", () => {
  it("envelopes a message: a flags byte, a big-endian length, the bytes", () => {
    expect([...encodeEnvelope(0, new Uint8Array([7, 8]))]).toEqual([0, 0, 0, 0, 2, 7, 8]);
  });

  it("compresses an envelope from the threshold, flagging it", async () => {
    const data = new Uint8Array(2048);
    const compressed = await envelopeCompress({ flags: 0, data }, compressionGzip, 1024);
    expect(compressed.flags).toBe(1);
    const small = await envelopeCompress({ flags: 0, data: new Uint8Array(10) }, compressionGzip, 1024);
    expect(small.flags).toBe(0);
  });

  it("writes a gRPC status into trailers: the code and the percent-encoded message", () => {
    const trailer = new Headers();
    setGrpcTrailerStatus(trailer, new ConnectError("bad name: ü", Code.InvalidArgument));
    expect(trailer.get("grpc-status")).toBe("3");
    expect(trailer.get("grpc-message")).toBe("bad%20name%3A%20%C3%BC");
    expect(grpcStatusOk).toBe("0");
    const web = new Headers();
    setGrpcWebTrailerStatus(web, new ConnectError("gone", Code.NotFound));
    expect(web.get("grpc-status")).toBe("5");
  });

  it("serializes gRPC-Web's trailer frame as header lines, flagged 0x80", () => {
    expect(trailerFlag).toBe(0x80);
    expect(new TextDecoder().decode(trailerSerialize(new Headers({ "grpc-status": "0" })))).toBe(
      "grpc-status: 0\r\n",
    );
  });

  it("writes a Connect error as JSON and reads it back, details and all", () => {
    const error = new ConnectError("no such folder", Code.NotFound);
    const json = JSON.parse(new TextDecoder().decode(errorToJsonBytes(error, {})));
    expect(json).toEqual({ code: "not_found", message: "no such folder" });
    const back = errorFromJsonBytes(errorToJsonBytes(error, {}), undefined, new ConnectError("x"));
    expect([back.code, back.rawMessage]).toEqual([Code.NotFound, "no such folder"]);
  });

  it("passes an error's metadata on as headers, but never a protocol header", () => {
    const into = new Headers();
    mergeNonProtocolHeaders(
      into,
      new Headers({ "www-authenticate": "Bearer", "content-type": "text/plain", "grpc-status": "1" }),
    );
    expect([...into.keys()]).toEqual(["www-authenticate"]);
  });

  it("ends a Connect stream with a flagged envelope of JSON, read back as its error", async () => {
    expect(endStreamFlag).toBe(0b10);
    const end = endStreamFromJson(
      new TextEncoder().encode('{"error":{"code":"unavailable","message":"down"}}'),
    );
    expect([end.error?.code, end.error?.rawMessage]).toEqual([Code.Unavailable, "down"]);
    const body = encodeEnvelope(endStreamFlag, new TextEncoder().encode("{}"));
    const envelopes = [];
    for await (const envelope of pipe(createAsyncIterable([body]), transformSplitEnvelope(100))) {
      envelopes.push(envelope.flags);
    }
    expect(envelopes).toEqual([endStreamFlag]);
    expect([
      ...(await readAllBytes(createAsyncIterable([new Uint8Array([1]), new Uint8Array([2])]), 10)),
    ]).toEqual([1, 2]);
  });
});
