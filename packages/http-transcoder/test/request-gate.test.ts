// The router's request gate (connect-es's `requestGate`) runs for a REST call once its route is
// known and before its body is read: a call it refuses is answered without the body, which may
// never arrive; a call it lets through carries the headers the gate set.
import net from "node:net";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LibraryServer, startLibraryServer } from "./library-server.js";

const gated: string[] = [];

/** Lets a call through only with `x-key: open`, and names the method it gated. */
function requestGate(context: HandlerContext): void {
  gated.push(context.method.name);
  if (context.requestHeader.get("x-key") !== "open") {
    throw new ConnectError("no key", Code.Unauthenticated, { "www-authenticate": "Key" });
  }
  context.responseHeader.set("x-gated", "yes");
}

let server: LibraryServer;
beforeAll(async () => {
  server = await startLibraryServer({}, { requestGate });
});
afterAll(async () => {
  await server?.close();
});

describe("the router's request gate over REST", () => {
  it("refuses a call before its body has arrived, with the gate's error and headers", async () => {
    const socket = net.connect(Number(new URL(server.baseUrl).port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      "POST /v1/shelves HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{",
    );
    const head = await new Promise<string>((resolve) => {
      let received = "";
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString("latin1");
        if (received.includes("\r\n\r\n")) resolve(received.slice(0, received.indexOf("\r\n\r\n")));
      });
    });
    socket.destroy();
    expect(head).toMatch(/^HTTP\/1\.1 401 /);
    expect(head.toLowerCase()).toContain("www-authenticate: key");
    expect(gated.at(-1)).toBe("CreateShelf");
  });

  it("lets a call through once, with the headers it set on the answer", async () => {
    const before = gated.length;
    const response = await fetch(`${server.baseUrl}/v1/shelves/1`, { headers: { "x-key": "open" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gated")).toBe("yes");
    expect(gated.slice(before)).toEqual(["GetShelf"]);
  });

  it("keeps what it set on a failure after it, and a body that does not parse is read only past it", async () => {
    const refused = await fetch(`${server.baseUrl}/v1/shelves`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(refused.status).toBe(401);
    const broken = await fetch(`${server.baseUrl}/v1/shelves`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-key": "open" },
      body: "{not json",
    });
    expect(broken.status).toBe(400);
    expect(broken.headers.get("x-gated")).toBe("yes");
  });
});
