// The handler's third argument: the call's context values, and the report of what the transcoder
// answered (the method called and the code of the answer, each once), as a server's access log
// and metrics read them.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  Code,
  ConnectError,
  createConnectRouter,
  createContextKey,
  createContextValues,
} from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpTranscoder } from "../src/index.js";
import { LibraryService } from "./gen/transcodertest/v1/library_pb.js";

const requestKey = createContextKey("", { description: "the server's id of the request" });

/** What one request reported, in order. */
type Reported = string[];

let server: Server;
let baseUrl: string;
const reports = new Map<string, Reported>();

beforeAll(async () => {
  const router = createConnectRouter();
  router.service(LibraryService, {
    getShelf(req, context) {
      if (req.name === "shelves/missing") throw new ConnectError("shelf not found", Code.NotFound);
      // The shelf's id is the request's id the server put in the call's context values.
      return { name: req.name, id: context.values.get(requestKey) };
    },
    async *watchBooks(req) {
      yield { name: `${req.parent}/books/1` };
      if (req.parent === "shelves/broken") throw new ConnectError("shelf broke", Code.DataLoss);
      yield { name: `${req.parent}/books/2` };
    },
  });
  const rest = createHttpTranscoder({ router, maxBodyBytes: 64 });
  server = createServer((req, res) => {
    const id = String(req.headers["x-id"]);
    const reported: Reported = [];
    reports.set(id, reported);
    rest(req, res, {
      contextValues: createContextValues().set(requestKey, id),
      report: {
        called: (method) => reported.push(`called ${method}`),
        answered: (code) => reported.push(`answered ${code}`),
      },
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
});

/** Sends a request, reads its answer whole, and returns its status with what it reported. */
async function send(id: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${baseUrl}${path}`, { ...init, headers: { ...init.headers, "x-id": id } });
  const body = await response.text();
  await expect.poll(() => reports.get(id)?.some((line) => line.startsWith("answered"))).toBe(true);
  return { status: response.status, body, reported: reports.get(id) };
}

describe("the handler's report of what it answered", () => {
  it("reports the method and ok for an answered call, which saw the context values given", async () => {
    const { status, body, reported } = await send("r1", "/v1/shelves/1");
    expect(status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ id: "r1" });
    expect(reported).toEqual(["called transcodertest.v1.LibraryService/GetShelf", "answered ok"]);
  });

  it("reports the code of a call's error", async () => {
    const { status, reported } = await send("r2", "/v1/shelves/missing");
    expect(status).toBe(404);
    expect(reported).toEqual(["called transcodertest.v1.LibraryService/GetShelf", "answered not_found"]);
  });

  it("reports the code of a refusal before any call: no method without a route, the route's for a body refused", async () => {
    expect((await send("r3", "/v1/nothing/here/at/all")).reported).toEqual(["answered not_found"]);
    const large = await send("r4", "/v1/shelves", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(100) }),
    });
    expect(large.status).toBe(413);
    // The route names the method before its body is read.
    expect(large.reported).toEqual([
      "called transcodertest.v1.LibraryService/CreateShelf",
      "answered resource_exhausted",
    ]);
  });

  it("reports a stream's end: ok, or the error that ended it after its first message", async () => {
    const watched = await send("r5", "/v1/shelves/1/books:watch");
    expect(watched.status).toBe(200);
    expect(watched.reported).toEqual(["called transcodertest.v1.LibraryService/WatchBooks", "answered ok"]);
    const broken = await send("r6", "/v1/shelves/broken/books:watch");
    expect(broken.status).toBe(200);
    expect(broken.reported).toEqual([
      "called transcodertest.v1.LibraryService/WatchBooks",
      "answered data_loss",
    ]);
  });
});
