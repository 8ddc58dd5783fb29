// Throughput and latency of one unary call made three ways against one server:
//
//   rest          POST /v1/shelves/s1/books?bookId=b1, JSON, through the transcoder, which calls
//                 the router's handler (a Connect call in binary, in-process)
//   connect-json  POST /transcodertest.v1.LibraryService/CreateBook, the Connect protocol with JSON
//   node-http     a hand-written node:http handler doing the same work (parse the JSON, build the
//                 same response), the floor
//
// The server runs in a child process so that the clients do not compete with it for the event
// loop. Each mode is measured in several interleaved rounds, so that a slower period of the machine
// does not count against one mode alone; the best round of each is reported.
//
// Usage: pnpm bench [--connections 32] [--duration 3] [--rounds 3] [--only rest] [--profile dir]
// Needs `pnpm generate:test && pnpm build` first (dist/ and bench/gen/); the root's `pnpm bench` does both.

import { fork } from "node:child_process";
import { once } from "node:events";
import { Agent, createServer, request } from "node:http";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  // `pnpm bench -- --duration 5` passes the "--" on.
  allowPositionals: true,
  options: {
    server: { type: "boolean", default: false },
    connections: { type: "string", default: "32" },
    duration: { type: "string", default: "3" },
    warmup: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
    // Only these modes (comma-separated names, e.g. "rest"), to profile one.
    only: { type: "string" },
    // Write a CPU profile of the server (.cpuprofile, for Chrome DevTools) into this directory.
    profile: { type: "string" },
  },
});

if (args.server) {
  await serve();
} else {
  await measure();
}

/** The server: the transcoder, connectNodeAdapter and the hand-written handler on one port. */
async function serve() {
  const { create, fromJson, toJson } = await import("@bufbuild/protobuf");
  const { connectNodeAdapter } = await import("@connectrpc/connect-node");
  const { createConnectRouter } = await import("@connectrpc/connect");
  const { createHttpTranscoder } = await import("../dist/index.js");
  const { LibraryService, BookSchema } = await import("./gen/transcodertest/v1/library_pb.js");

  const library = {
    createBook(req) {
      return { ...req.book, name: `${req.parent}/books/${req.bookId}` };
    },
  };
  const connect = connectNodeAdapter({ routes: (r) => r.service(LibraryService, library) });
  const router = createConnectRouter().service(LibraryService, library);
  const successStatus = (method) => (method.name.startsWith("Create") ? 201 : 200);
  const rest = createHttpTranscoder({ router, successStatus });

  // The floor: what any JSON-over-HTTP handler has to do at least, with the same protobuf JSON
  // mapping (fromJson to validate the body, toJson to write the response).
  const floor = (req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const book = fromJson(BookSchema, JSON.parse(Buffer.concat(chunks).toString("utf8")));
      const response = create(BookSchema, { ...book, name: "shelves/s1/books/b1" });
      res.statusCode = 201;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(toJson(BookSchema, response, { alwaysEmitImplicit: true })));
    });
  };

  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    if (req.url.startsWith("/v1/")) {
      rest(req, res);
    } else if (req.url.startsWith("/floor/")) {
      floor(req, res);
    } else {
      connect(req, res);
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  process.send?.({ port: server.address().port });
  process.on("disconnect", () => process.exit(0));
}

async function measure() {
  const connections = Number(args.connections);
  const durationMs = Number(args.duration) * 1000;
  const warmupMs = Number(args.warmup) * 1000;
  const rounds = Number(args.rounds);

  const child = fork(new URL(import.meta.url), ["--server"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: args.profile === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", args.profile],
  });
  const [{ port }] = await once(child, "message");

  const book = {
    title: "Moby-Dick",
    tags: ["sea", "whales", "classic"],
    pages: 635,
    genre: "GENRE_FICTION",
    publishTime: "1851-10-18T00:00:00Z",
    details: { publisher: "Harper & Brothers", edition: 1, formerTitles: ["The Whale"] },
    labels: { language: "en" },
  };
  const allModes = [
    {
      name: "rest",
      path: "/v1/shelves/s1/books?bookId=b1",
      body: JSON.stringify(book),
      status: 201,
      headers: {},
    },
    {
      name: "connect-json",
      path: "/transcodertest.v1.LibraryService/CreateBook",
      body: JSON.stringify({ parent: "shelves/s1", bookId: "b1", book }),
      status: 200,
      headers: { "connect-protocol-version": "1" },
    },
    { name: "node-http", path: "/floor/books", body: JSON.stringify(book), status: 201, headers: {} },
  ];
  const only = args.only?.split(",");
  const modes = allModes.filter((mode) => only === undefined || only.includes(mode.name));

  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const send = (mode) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: mode.path,
          agent,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(mode.body),
            ...mode.headers,
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.on("end", () => {
            if (res.statusCode !== mode.status) {
              reject(new Error(`${mode.name}: HTTP ${res.statusCode} ${text}`));
            } else {
              resolve(text);
            }
          });
        },
      );
      req.on("error", reject);
      req.end(mode.body);
    });

  // The three must do the same work: check that they answer the same book.
  for (const mode of modes) {
    const answer = JSON.parse(await send(mode));
    if (answer.name !== "shelves/s1/books/b1" || answer.details?.publisher !== book.details.publisher) {
      throw new Error(`${mode.name} answered ${JSON.stringify(answer)}`);
    }
  }

  const run = async (mode, ms) => {
    const latencies = [];
    const deadline = performance.now() + ms;
    const client = async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await send(mode);
        latencies.push(performance.now() - started);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: connections }, client));
    const elapsed = performance.now() - started;
    latencies.sort((a, b) => a - b);
    const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    return {
      requests: latencies.length,
      rps: (latencies.length / elapsed) * 1000,
      p50: at(0.5),
      p99: at(0.99),
    };
  };

  const best = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) {
      await run(mode, warmupMs);
      const result = await run(mode, durationMs);
      const previous = best.get(mode.name);
      if (previous === undefined || result.rps > previous.rps) {
        best.set(mode.name, result);
      }
    }
  }

  const reference = best.get("connect-json")?.rps ?? Number.NaN;
  console.log(
    `\n${connections} keep-alive connections, ${rounds} rounds of ${args.duration}s per mode (best round), node ${process.version}\n`,
  );
  console.log("mode             req/s    p50 ms   p99 ms   vs connect-json");
  for (const mode of modes) {
    const r = best.get(mode.name);
    console.log(
      `${mode.name.padEnd(13)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(9)} ${r.p99.toFixed(2).padStart(8)}   ${((r.rps / reference) * 100).toFixed(1).padStart(6)}%`,
    );
  }
  agent.destroy();
  child.disconnect();
  await once(child, "exit");
}
