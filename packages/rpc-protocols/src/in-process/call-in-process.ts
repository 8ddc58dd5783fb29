import type { Message } from "@bufbuild/protobuf";
import type { HandlerContext, Interceptor, MethodImplSpec } from "@connectrpc/connect";
import {
  createAsyncIterable,
  invokeUnaryImplementation,
  transformInvokeImplementation,
} from "../connect-internals.js";
import type { RegisteredMethod } from "./transcoding-router.js";

/**
 * Calls a unary method's implementation with the request message, through the interceptors the
 * router wraps it in, as the router's own handlers do after decoding a message
 * (`invokeUnaryImplementation` of connect-es). REST calls it with the message it built; Connect,
 * gRPC and gRPC-Web with the message they decoded.
 */
export function callUnary(
  registered: RegisteredMethod,
  context: HandlerContext,
  message: Message,
): Promise<Message> {
  return invokeUnaryImplementation(
    registered.spec as MethodImplSpec & { kind: "unary" },
    context,
    message,
    registered.interceptors as Interceptor[],
  );
}

/**
 * Calls a server-streaming method's implementation with the request message, through the
 * router's interceptors, as the router's own handlers do (`transformInvokeImplementation` of
 * connect-es): its messages come as the implementation yields them, with no encoding between.
 */
export function callServerStream(
  registered: RegisteredMethod,
  context: HandlerContext,
  message: Message,
): AsyncIterator<Message> {
  const invoke = transformInvokeImplementation(
    registered.spec,
    context,
    registered.interceptors as Interceptor[],
  );
  return invoke(createAsyncIterable([message]))[Symbol.asyncIterator]() as AsyncIterator<Message>;
}
