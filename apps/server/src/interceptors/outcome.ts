import type { Interceptor, StreamResponse } from "@connectrpc/connect";
import { outcomeCode, type RequestFacts, requestFactsKey } from "../observe/request-facts.js";

/**
 * The outermost interceptor: records which RPC a request called and the code it ended with, as
 * the client sees it (after the error interceptor's mapping), in the request's facts, for the
 * access log, the metrics and the trace. A stream's code is known when its last message is sent.
 */
export function createOutcomeInterceptor(): Interceptor {
  return (next) => async (req) => {
    const facts = req.contextValues.get(requestFactsKey);
    if (facts === undefined) return next(req);
    facts.intercept(`${req.service.typeName}/${req.method.name}`);
    try {
      const res = await next(req);
      if (!res.stream) {
        facts.answered(outcomeCode());
        return res;
      }
      return { ...res, message: recordingEnd(res.message, facts) } as StreamResponse;
    } catch (error) {
      facts.answered(outcomeCode(error));
      throw error;
    }
  };
}

async function* recordingEnd<T>(messages: AsyncIterable<T>, facts: RequestFacts): AsyncIterable<T> {
  try {
    yield* messages;
    facts.answered(outcomeCode());
  } catch (error) {
    facts.answered(outcomeCode(error));
    throw error;
  } finally {
    // Neither ended nor failed: the client went away mid-stream.
    facts.answered("canceled");
  }
}
