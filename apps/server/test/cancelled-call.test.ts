import { Code, ConnectError, type UnaryRequest, type UnaryResponse } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createCancelledCallInterceptor } from "../src/interceptors/cancelled-call.js";

describe("the cancelled-call interceptor", () => {
  const interceptor = createCancelledCallInterceptor();
  const call = (signal: AbortSignal) => {
    let reached = false;
    const next = async () => {
      reached = true;
      return {} as UnaryResponse;
    };
    const result = interceptor(next)({ signal } as UnaryRequest);
    return { result, reached: () => reached };
  };

  it("keeps a call whose client has gone from the service", async () => {
    const { result, reached } = call(AbortSignal.abort());
    const error = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ConnectError.from(error).code).toBe(Code.Canceled);
    expect(reached()).toBe(false);
  });

  it("lets every other call through", async () => {
    const { result, reached } = call(new AbortController().signal);
    await result;
    expect(reached()).toBe(true);
  });
});

describe("a call past its deadline before the service", () => {
  it("ends as deadline_exceeded, not as cancelled: its client is still waiting", async () => {
    const interceptor = createCancelledCallInterceptor();
    let reached = false;
    const next = async () => {
      reached = true;
      return {} as UnaryResponse;
    };
    const signal = AbortSignal.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded));
    const error = await interceptor(next)({ signal } as UnaryRequest).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ConnectError.from(error).code).toBe(Code.DeadlineExceeded);
    expect(reached).toBe(false);
  });
});
