// The seam through which the transcoder calls methods (MethodRunner): a runner begins a REST call
// once its route is known and before its body is read, so a runner that decides on the headers
// alone (authentication, say) refuses a call without the body, which may never arrive; a call it
// lets through carries the headers it set.
import net from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MethodRunner } from "../src/index.js";
import { type LibraryServer, startLibraryServer } from "./library-server.js";

const gated: string[] = [];

/** Lets a call through only with `x-key: open`, and names the method it gated, before the body. */
function keyChecking(runner: MethodRunner): MethodRunner {
  return {
    serves: (method) => runner.serves(method),
    async begin(call) {
      gated.push(call.method.name);
      if (call.requestHeader.get("x-key") !== "open") {
        throw new ConnectError("no key", Code.Unauthenticated, { "www-authenticate": "Key" });
      }
      const running = await runner.begin(call);
      running.responseHeader.set("x-gated", "yes");
      return running;
    },
  };
}

let server: LibraryServer;
beforeAll(async () => {
  server = await startLibraryServer({}, { runner: keyChecking });
});
afterAll(async () => {
  await server?.close();
});

describe("a runner that decides on the headers", () => {
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
