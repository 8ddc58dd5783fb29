// The gate's REST surface is the one the server serves: the document the gate builds from the
// repository's proto has no incompatible difference, either way, from the server's /openapi.json
// (built here from the server's own source, with its default configuration). Response headers
// are left out of the comparison: the server adds most from its own code (request id, rate
// limits), which no proto change moves. Both run the same builder (@folio/api-document): this
// checks that the descriptors the gate builds from the proto are the ones the server serves.

import { createFolioOpenApiDocument } from "@folio/api-document";
import { documentOperations, type OpenApiDocument, type OperationObject } from "@folio/openapi";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../apps/server/src/env.ts";
import { currentRestDocument, restBreakingChanges } from "../src/index.ts";
import { PROTO_DIR } from "./fixture.ts";

describe("the gate's OpenAPI document", () => {
  it("describes the REST surface the server serves", async () => {
    const served = withoutResponseHeaders(createFolioOpenApiDocument(loadConfig({}).auth));
    const gate = withoutResponseHeaders(await currentRestDocument(PROTO_DIR));
    expect(Object.keys(gate.paths)).toEqual(Object.keys(served.paths));
    expect(restBreakingChanges(served, gate)).toEqual([]);
    expect(restBreakingChanges(gate, served)).toEqual([]);
    // The scope each operation requires, which the diff reads as a description.
    const security = (document: OpenApiDocument) =>
      operationsOf(document).map((operation) => operation.security);
    expect(security(gate)).toEqual(security(served));
  });
});

function operationsOf(document: OpenApiDocument): OperationObject[] {
  return documentOperations(document).map(({ operation }) => operation);
}

/** `document` without the headers of its responses. */
function withoutResponseHeaders(document: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(document);
  for (const operation of operationsOf(copy)) {
    for (const response of Object.values(operation.responses ?? {})) {
      if ("headers" in response) delete response.headers;
    }
  }
  return copy;
}
