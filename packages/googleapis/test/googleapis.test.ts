import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, HttpRuleSchema, invalidArgument } from "@folio/googleapis";
import * as httpPb from "@folio/googleapis/google/api/http_pb.js";
import * as errorDetailsPb from "@folio/googleapis/google/rpc/error_details_pb.js";
import { describe, expect, it } from "vitest";

describe("invalidArgument", () => {
  it("is invalid_argument with a google.rpc.BadRequest naming every field", () => {
    const error = invalidArgument([
      { field: "name", description: "must not be empty" },
      { field: "parentId", description: "must be a UUID", reason: "NOT_A_UUID" },
    ]);
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe("name: must not be empty; parentId: must be a UUID");
    const [detail] = error.findDetails(BadRequestSchema);
    expect(
      detail?.fieldViolations.map(({ field, description, reason }) => ({ field, description, reason })),
    ).toEqual([
      { field: "name", description: "must not be empty", reason: "" },
      { field: "parentId", description: "must be a UUID", reason: "NOT_A_UUID" },
    ]);
  });

  it("takes a message of its own, and names a violation of the whole request by its description", () => {
    expect(invalidArgument([{ field: "", description: "expected a JSON object" }]).rawMessage).toBe(
      "expected a JSON object",
    );
    expect(invalidArgument([{ field: "a", description: "b" }], "request body: bad").rawMessage).toBe(
      "request body: bad",
    );
  });
});

describe("generated once", () => {
  it("serves each generated file under google/ as the very module the index exports", () => {
    // Code generated with rewrite_imports imports these paths: one descriptor per type in a process.
    expect(httpPb.HttpRuleSchema).toBe(HttpRuleSchema);
    expect(errorDetailsPb.BadRequestSchema).toBe(BadRequestSchema);
  });
});
