// @folio/rpc-protocols: Connect, gRPC and gRPC-Web served for a router (rpc-handler.ts), their
// unary calls in-process (unary-calls.ts), and the in-process call REST (@folio/http-transcoder)
// makes too.
//
// Node's request and response types; which protocol a request speaks (detect-protocol.ts) and how
// a unary request is read (unary-wire.ts, read-message.ts, request-options.ts); the in-process
// call (in-process/: the router that keeps its methods, the call's context, the call); each
// protocol's answer (protocol-connect/, protocol-grpc/, protocol-grpc-web/), written in one go
// (write-unary-answer.ts).

// Node's request types and the request target, as the transcoder (which this package serves beside) names them.
export {
  clientGoneReason,
  entityTag,
  matchesIfNoneMatch,
  type NodeHandler,
  type NodeRequest,
  type NodeResponse,
  type RequestTarget,
  splitRequestTarget,
} from "@folio/http-transcoder";
export { codeOfCallEnd, codeOfError, reportedCodeFromHttpStatus } from "./answer-code.js";
export { callEndKey, recordAnsweredCode } from "./answered-code-gate.js";
export { type RpcProtocol, rpcProtocolOf, wireTypeOf } from "./detect-protocol.js";
export type { GetCaching } from "./get-caching.js";
export { callServerStream, callUnary } from "./in-process/call-in-process.js";
export {
  createInProcessContext,
  type InProcessCall,
  type InProcessContextInit,
} from "./in-process/in-process-context.js";
export { createInProcessRunner } from "./in-process/in-process-runner.js";
export {
  createTranscodingRouter,
  type RegisteredMethod,
  type TranscodingRouter,
} from "./in-process/transcoding-router.js";
export type { ErrorLogger } from "./logger.js";
export { connectAnswer } from "./protocol-connect/unary-answer.js";
export { grpcAnswer } from "./protocol-grpc/unary-answer.js";
export { grpcWebAnswer } from "./protocol-grpc-web/unary-answer.js";
export {
  type BodyRead,
  bodyBytes,
  type Envelope,
  readBody,
  replayBody,
  singleEnvelope,
} from "./read-message.js";
export { type ConnectRequestOptions, connectRequestOptions } from "./request-options.js";
export {
  createRpcHandler,
  type RpcHandler,
  type RpcHandlerOptions,
  type RpcRequestScope,
} from "./rpc-handler.js";
export {
  createUnaryCalls,
  type Fallback,
  type UnaryCallOptions,
  type UnaryCallScope,
  type UnaryCalls,
} from "./unary-calls.js";
export { type UnaryWire, unaryWireOf } from "./unary-wire.js";
export type { WireProtocol, WireType } from "./wire-protocol.js";
export {
  type NodeHeaders,
  nodeHeaders,
  type UnaryAnswer,
  writeUnaryAnswer,
  writeUnaryResponse,
} from "./write-unary-answer.js";
