import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema } from "@folio/googleapis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FolioError, folioErrorFromRest, parseRetryAfter } from "../src/errors.js";
import { nextPageToken } from "../src/rest.js";
import { retryDelay, sleep, withRetries } from "../src/retry.js";

const error = (code: Code, headers: Record<string, string> = {}) =>
  new FolioError(new ConnectError("x", code, headers));

describe("retryDelay", () => {
  it("waits the Retry-After the server sent", () => {
    expect(retryDelay(error(Code.ResourceExhausted, { "retry-after": "1" }), 1)).toBe(1_000);
    expect(retryDelay(error(Code.Unavailable, { "retry-after": "2" }), 3)).toBe(2_000);
  });

  it("otherwise backs off exponentially, a random half to all of the doubled delay, capped", () => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      const ceiling = 250 * 2 ** (attempt - 1);
      for (let i = 0; i < 200; i++) {
        const delay = retryDelay(error(Code.Aborted), attempt) as number;
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
    const capped = retryDelay(error(Code.Unavailable), 10, { maxAttempts: 20, maxDelayMs: 1_000 }) as number;
    expect(capped).toBeLessThanOrEqual(1_000);
  });

  it("retries unavailable, resource_exhausted and aborted only, and stops after maxAttempts", () => {
    for (const code of [
      Code.InvalidArgument,
      Code.AlreadyExists,
      Code.NotFound,
      Code.Internal,
      Code.Unauthenticated,
    ]) {
      expect(retryDelay(error(code), 1)).toBeUndefined();
    }
    expect(retryDelay(error(Code.Unavailable), 4)).toBeUndefined();
    expect(retryDelay(error(Code.Unavailable), 1, { maxAttempts: 1 })).toBeUndefined();
    // A Retry-After past maxDelayMs is not waited for.
    expect(retryDelay(error(Code.ResourceExhausted, { "retry-after": "60" }), 1)).toBeUndefined();
  });

  it("withRetries gives up before a wait that would pass the deadline", async () => {
    let attempts = 0;
    const started = Date.now();
    const failure = withRetries(
      async () => {
        attempts++;
        throw error(Code.Unavailable, { "retry-after": "2" });
      },
      { deadline: Date.now() + 1_000 },
    );
    await expect(failure).rejects.toMatchObject({ code: Code.Unavailable });
    expect(attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("reading what the server sent", () => {
  it("parses Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("3")).toBe(3);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 5_000)).toBe(5);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it("reads the next page's token from a Link header, or none on the last page", () => {
    expect(nextPageToken('</api/v1/projects?city=Lyon&pageToken=abc%3D>; rel="next"')).toBe("abc=");
    expect(
      nextPageToken('<https://x.example/a>; rel="prev", </api/v1/projects?pageToken=t2>; rel="next"'),
    ).toBe("t2");
    expect(nextPageToken(null)).toBe("");
  });

  it("reads a REST envelope as the same FolioError an RPC gives", () => {
    const rest = folioErrorFromRest(400, new Headers({ "x-request-id": "r1" }), {
      error: {
        code: "invalid_argument",
        message: "bad",
        requestId: "r1",
        details: [
          {
            type: "google.rpc.BadRequest",
            fieldViolations: [{ field: "color", description: "must be #rgb" }],
          },
          { type: "google.rpc.ErrorInfo", reason: "R", domain: "folio.v1", metadata: { a: "b" } },
        ],
      },
    });
    const rpc = new FolioError(
      new ConnectError("bad", Code.InvalidArgument, { "x-request-id": "r1" }, [
        {
          desc: BadRequestSchema,
          value: create(BadRequestSchema, {
            fieldViolations: [{ field: "color", description: "must be #rgb" }],
          }),
        },
      ]),
    );
    expect(rest.code).toBe(Code.InvalidArgument);
    expect(rest.codeName).toBe("invalid_argument");
    expect(rest.requestId).toBe("r1");
    expect(rest.reason).toBe("R");
    expect(rest.reasonMetadata).toEqual({ a: "b" });
    expect(rest.fieldViolations).toEqual(rpc.fieldViolations);
    expect(rest).toBeInstanceOf(FolioError);
    expect(rest).toBeInstanceOf(ConnectError);
    expect(new ConnectError("plain")).not.toBeInstanceOf(FolioError);
  });
});

describe("sleep", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("does not resolve when its timer fires before the wall clock has reached the deadline", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // The wall clock lags the timers by a millisecond, as Date.now() may behind Node's timers.
    let wallClock = 10_000;
    vi.spyOn(Date, "now").mockImplementation(() => wallClock);
    let resolved = false;
    const done = sleep(1_000, undefined).then(() => {
      resolved = true;
    });
    wallClock = 10_999;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(resolved).toBe(false);
    wallClock = 11_000;
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(resolved).toBe(true);
  });

  it("rejects with the signal's reason when it aborts during the wait", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });
});
