import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, ErrorInfoSchema } from "@folio/googleapis";
import { FolderService, ProjectService } from "@folio/proto";
import { describe, expect, it } from "vitest";
import { describeError, isTransient } from "../src/errors.js";

const createFolder = FolderService.method.createFolder;
const listProjects = ProjectService.method.listProjects;
const context = {
  method: createFolder,
  apiUrl: "http://127.0.0.1:8080",
  pageOrigin: "http://127.0.0.1:8080",
};

function withReason(code: Code, reason: string, headers: Record<string, string> = {}) {
  return new ConnectError("refused", code, headers, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason, domain: "folio.v1" }) },
  ]);
}

describe("describeError", () => {
  it("puts each field violation of a BadRequest next to its field, in a sentence", () => {
    const error = new ConnectError("invalid", Code.InvalidArgument, { "x-request-id": "req-1" }, [
      {
        desc: BadRequestSchema,
        value: create(BadRequestSchema, {
          fieldViolations: [
            { field: "name", description: "must not be empty" },
            { field: "color", description: "must be #rgb or #rrggbb" },
          ],
        }),
      },
    ]);
    const report = describeError(error, context);
    expect(report.fields).toEqual({
      name: "Name must not be empty.",
      color: "Colour must be #rgb or #rrggbb.",
    });
    expect(report.summary).toBe("2 fields need a change.");
    expect(report.requestId).toBe("req-1");
  });

  it("says a name is taken next to the name", () => {
    const report = describeError(withReason(Code.AlreadyExists, "FOLDER_NAME_TAKEN"), context);
    expect(report.fields.name).toMatch(/^A folder with this name already exists/);
    expect(report.summary).toBe("The name is taken.");
  });

  it("explains a reused idempotency key and a request still in progress, with the wait", () => {
    expect(describeError(withReason(Code.AlreadyExists, "IDEMPOTENCY_KEY_REUSED"), context).summary).toMatch(
      /idempotency key was already used for a different folder/,
    );
    const inProgress = describeError(
      withReason(Code.Aborted, "REQUEST_IN_PROGRESS", { "retry-after": "1" }),
      context,
    );
    expect(inProgress.summary).toBe("The same request is still being processed. Try again in 1 second.");
    expect(inProgress.retryAfterSeconds).toBe(1);
  });

  it("names the scope a token lacks, from the method's declaration", () => {
    const forbidden = new ConnectError('token lacks the scope "files:upload"', Code.PermissionDenied);
    expect(describeError(forbidden, context)).toMatchObject({
      summary: "Your token does not allow this: it lacks the scope “files:upload”. Use a token that has it.",
      fixConnection: true,
    });
    expect(describeError(forbidden, { ...context, method: listProjects }).summary).toContain(
      "“project:read”",
    );
  });

  it("tells an expired token from another refusal", () => {
    const refused = new ConnectError("token has expired", Code.Unauthenticated);
    const expired = describeError(refused, {
      ...context,
      tokenExpiresAt: new Date("2026-01-01T10:00:00Z"),
      now: new Date("2026-01-01T10:05:00Z"),
    });
    expect(expired.summary).toMatch(/^Your token expired at .+\. Paste a new one\.$/);
    expect(expired.fixConnection).toBe(true);
    const bad = describeError(
      new ConnectError("token is signed with an unknown key", Code.Unauthenticated),
      context,
    );
    expect(bad.summary).toBe(
      "The server did not accept your token (token is signed with an unknown key). Paste a new one.",
    );
  });

  it("gives the wait of a rate limit from Retry-After", () => {
    const report = describeError(
      new ConnectError("rate limit exceeded", Code.ResourceExhausted, { "retry-after": "42" }),
      context,
    );
    expect(report.summary).toBe("Too many requests: the rate limit is reached. Try again in 42 seconds.");
    expect(report.retryAfterSeconds).toBe(42);
  });

  it("puts a missing parent next to the parent field", () => {
    const report = describeError(new ConnectError("parent folder not found", Code.NotFound), context);
    expect(report.fields.parentId).toBe("No folder with this id exists in your organisation.");
  });

  it("tells a folder that is not found in the server's words (another organisation's alike)", () => {
    const getFolder = { ...context, method: FolderService.method.getFolder };
    const report = describeError(new ConnectError("folder not found", Code.NotFound), getFolder);
    expect(report.summary).toBe("Folder not found.");
    expect(report.fields).toEqual({});
  });

  it("says a failed fetch to another origin may be CORS, and names the page's origin", () => {
    const failed = ConnectError.from(new TypeError("Failed to fetch"));
    const report = describeError(failed, { ...context, pageOrigin: "http://127.0.0.1:5173" });
    expect(report.summary).toBe(
      "Could not reach the API at http://127.0.0.1:8080. Check the address, that the server runs, and that it allows this page's origin (http://127.0.0.1:5173) in CORS_ALLOWED_ORIGINS.",
    );
    expect(describeError(failed, context).summary).toBe(
      "Could not reach the API at http://127.0.0.1:8080. Check that the server runs.",
    );
    expect(isTransient(failed)).toBe(true);
    expect(isTransient(new ConnectError("no", Code.PermissionDenied))).toBe(false);
  });

  it("gives the request id of an internal error to quote", () => {
    const report = describeError(
      new ConnectError("internal error (request id r-9)", Code.Internal, { "x-request-id": "r-9" }),
      context,
    );
    expect(report.summary).toBe(
      "The server failed to handle the request. If it keeps happening, report request id r-9.",
    );
  });
});
