// How a client is made from services: each unary method under its name, names that clash refused,
// and the caller's request left as it was given.
import { create } from "@bufbuild/protobuf";
import { CreateFolderRequestSchema, FolderService } from "@folio/proto";
import { describe, expect, it } from "vitest";
import { createFolioClient } from "../src/index.js";

describe("a client of the services it is given", () => {
  it("refuses two methods of one name, naming both", () => {
    expect(() =>
      createFolioClient({ baseUrl: "http://x.test", services: [FolderService, FolderService] }),
    ).toThrow(
      "folio.v1.FolderService.CreateFolder cannot be client.createFolder: folio.v1.FolderService.CreateFolder has that name",
    );
  });

  it("sends an idempotency key without writing it into the caller's request", async () => {
    const sent: unknown[] = [];
    const client = createFolioClient({
      baseUrl: "http://x.test",
      protocol: "rest",
      services: [FolderService],
      fetch: async (input, init) => {
        sent.push(await new Request(input, init).json());
        return Response.json({ folder: { name: "A" } }, { status: 201 });
      },
    });
    const request = create(CreateFolderRequestSchema, { name: "A" });
    const fields = { name: "A" };
    await client.createFolder(request);
    await client.createFolder(fields);
    expect(request.requestId).toBeUndefined();
    expect(fields).toEqual({ name: "A" });
    expect(sent).toEqual([
      { name: "A", requestId: expect.any(String) },
      { name: "A", requestId: expect.any(String) },
    ]);
    // One key a call: the second call is another request.
    expect((sent[0] as { requestId: string }).requestId).not.toBe(
      (sent[1] as { requestId: string }).requestId,
    );
  });
});
