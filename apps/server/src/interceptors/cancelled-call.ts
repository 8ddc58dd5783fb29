import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

/**
 * Ends a call whose client has gone (its HTTP/2 stream reset, its connection closed) before the
 * service starts its queries: the checks before it (token, rate limit) may have taken a while,
 * and nobody is left to receive the answer. Rapid-reset floods thus cost no database work. A call
 * whose deadline has passed ends the same way, as deadline_exceeded: its client is still there.
 */
export function createCancelledCallInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (req.signal.aborted) {
      const reason: unknown = req.signal.reason;
      if (reason instanceof ConnectError && reason.code === Code.DeadlineExceeded) throw reason;
      throw new ConnectError("the client cancelled the call", Code.Canceled);
    }
    return next(req);
  };
}
