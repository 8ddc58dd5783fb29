import { createContextKey, type HandlerContext } from "@connectrpc/connect";

/**
 * Where the request gate tells how a call connect-es's handler serves ended: the reason its
 * signal aborted with. The layer that hands the request to connect-es puts it in the call's
 * context values, the one way connect-es passes anything to the gate.
 */
export const callEndKey = createContextKey<((reason: unknown) => void) | undefined>(undefined, {
  description: "call end",
});

/**
 * A request gate of the Connect, gRPC and gRPC-Web handlers (connect-es runs it for every call,
 * before the request body is read). connect-es tells the code of a call it answers to no one, but
 * ends every call by aborting its signal: with the error it answers (a body too large, a message
 * that does not parse, a bad timeout header, a failure of the interceptors), or without one when
 * the call succeeded. The gate hands that reason on to the call's {@link callEndKey}; a call
 * without one (the in-process paths, which report their answers themselves) is left alone.
 */
export function recordAnsweredCode(context: HandlerContext): void {
  const ended = context.values.get(callEndKey);
  if (ended === undefined) return;
  const { signal } = context;
  if (signal.aborted) ended(signal.reason);
  else signal.addEventListener("abort", () => ended(signal.reason), { once: true });
}
