import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { connectionKey } from "../transport/connection-key.js";
import type { StreamLimits } from "../transport/public-stream-limits.js";
import { type StreamCap, StreamSlots } from "./stream-slots.js";

/**
 * Bounds the streams of `services`, which anyone may open (gRPC health's Watch, server
 * reflection): one beyond its connection's cap or the process's is refused with
 * `resource_exhausted`, naming the cap; one that reaches the maximum age ends with OK. Its slot is
 * given back however it ends: by its handler, its client, its deadline, its age or a shutdown.
 */
export function createStreamLimitInterceptor(
  services: readonly DescService[],
  limits: StreamLimits,
): Interceptor {
  const bounded = new Set(services.map((service) => service.typeName));
  const slots = new StreamSlots(limits.perConnection, limits.perProcess);
  return (next) => async (req) => {
    if (!req.stream || !bounded.has(req.service.typeName)) return next(req);
    const release = slots.take(req.contextValues.get(connectionKey));
    if (typeof release === "string") throw refusal(release, limits);
    const aged = new AbortController();
    const timer = setTimeout(() => aged.abort(), limits.maxAgeMs);
    timer.unref();
    // The handler sees its call end at the stream's age too: a Watch stops waiting for a change.
    const signal = AbortSignal.any([req.signal, aged.signal]);
    const end = () => {
      clearTimeout(timer);
      release();
    };
    // connect-es aborts a call's signal however the call ends, even one whose answer was never
    // read; the stream's own end below is for callers that do not.
    signal.addEventListener("abort", end, { once: true });
    try {
      const res = await next({ ...req, signal });
      return res.stream ? { ...res, message: untilAged(res.message, signal, aged.signal, end) } : res;
    } catch (error) {
      end();
      throw error;
    }
  };
}

/**
 * The handler's `messages`, until `signal` aborts: at the stream's age (`aged`) they end with OK;
 * at the call's own end (its client gone, its deadline past) with that reason. `end` runs once
 * they have ended, however.
 */
async function* untilAged<T>(
  messages: AsyncIterable<T>,
  signal: AbortSignal,
  aged: AbortSignal,
  end: () => void,
): AsyncGenerator<T> {
  const it = messages[Symbol.asyncIterator]();
  let stop = () => {};
  const stopped = new Promise<"stopped">((resolve) => {
    stop = () => resolve("stopped");
  });
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      // Raced, not awaited alone: a reflection handler waits for its client's next message,
      // whatever the signal says.
      const next = await Promise.race([it.next(), stopped]);
      if (next === "stopped") break;
      if (next.done === true) return;
      yield next.value;
    }
  } catch (error) {
    // A handler that ends on its signal (Watch: canceled) ends so at the stream's age too: no failure.
    if (aged.aborted) return;
    throw error;
  } finally {
    signal.removeEventListener("abort", stop);
    end();
  }
  // The handler, told by its signal, ends by itself (or when its stream closes); not waited for.
  it.return?.().catch(() => undefined);
  if (!aged.aborted) throw ConnectError.from(signal.reason, Code.Canceled);
}

function refusal(cap: StreamCap, limits: StreamLimits): ConnectError {
  const message =
    cap === "connection"
      ? `per-connection cap reached: at most ${limits.perConnection} gRPC health Watch and server reflection streams may be open on one connection`
      : `per-process cap reached: the server holds ${limits.perProcess} gRPC health Watch and server reflection streams, its most; retry later`;
  return new ConnectError(message, Code.ResourceExhausted);
}
