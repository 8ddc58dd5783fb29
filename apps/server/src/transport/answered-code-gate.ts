import { ConnectError, type HandlerContext } from "@connectrpc/connect";
import { outcomeCode, requestFactsKey } from "../observe/request-facts.js";

/**
 * A request gate of the Connect, gRPC and gRPC-Web handlers (connect-es runs it for every call,
 * before the request body is read). A call that fails before it reaches the interceptors (a body
 * too large, a message that does not parse, a bad timeout header) is decided by connect-es, which
 * aborts the call's context with the error it answers: that error's code goes into the request's
 * facts. A call that reaches the interceptors has its code from the outcome interceptor first.
 */
export function recordAnsweredCode(context: HandlerContext): void {
  const facts = context.values.get(requestFactsKey);
  if (facts === undefined) return;
  context.signal.addEventListener(
    "abort",
    () => {
      const reason: unknown = context.signal.reason;
      if (reason instanceof ConnectError) facts.answered(outcomeCode(reason));
    },
    { once: true },
  );
}
