// The one door to connect-es's protocol internals (`@connectrpc/connect/protocol*`), which connect-es
// marks "internal code, does not follow semantic versioning". Folio relies on each name below; every
// other module imports it from here, and test/connect-internals.test.ts pins what Folio relies on,
// so that a connect-es upgrade that changes one fails there, not in production.

// The in-process call: a method through its interceptors, as connect-es's handlers call it.
export {
  type Compression,
  compressionNegotiate,
  createAsyncIterable,
  createMethodSerializationLookup,
  encodeEnvelope,
  envelopeCompress,
  invokeUnaryImplementation,
  type MethodSerializationLookup,
  mergeNonProtocolHeaders,
  pipe,
  readAllBytes,
  type Serialization,
  transformInvokeImplementation,
  transformSplitEnvelope,
  type UniversalHandler,
  type UniversalServerResponse,
  validateReadWriteMaxBytes,
} from "@connectrpc/connect/protocol";

// The Connect protocol: content types, headers, timeouts, error bodies, the end of a stream, and
// the code names and statuses connect-es's Connect handler answers with.
export {
  codeFromHttpStatus as connectCodeFromHttpStatus,
  codeFromString as connectCodeFromString,
  codeToHttpStatus as connectCodeToHttpStatus,
  codeToString as connectCodeToString,
  contentTypeUnaryJson,
  contentTypeUnaryProto,
  endStreamFlag,
  endStreamFromJson,
  errorFromJsonBytes,
  errorToJsonBytes,
  headerTimeout as connectHeaderTimeout,
  headerUnaryAcceptEncoding,
  headerUnaryEncoding,
  headerUnaryTrailerPrefix,
  parseTimeout as parseConnectTimeout,
} from "@connectrpc/connect/protocol-connect";

// gRPC: headers, timeouts, the status in trailers.
export {
  grpcStatusOk,
  headerAcceptEncoding as grpcHeaderAcceptEncoding,
  headerEncoding as grpcHeaderEncoding,
  headerTimeout as grpcHeaderTimeout,
  parseTimeout as parseGrpcTimeout,
  setTrailerStatus as setGrpcTrailerStatus,
} from "@connectrpc/connect/protocol-grpc";

// gRPC-Web: the trailer frame.
export {
  setTrailerStatus as setGrpcWebTrailerStatus,
  trailerFlag,
  trailerSerialize,
} from "@connectrpc/connect/protocol-grpc-web";
