// One call lifecycle, whatever path a call takes: REST (through the in-process runner, or the
// router's handlers), and Connect, gRPC and gRPC-Web (served in-process, or by connect-es's
// handlers). The server is assembled as apps/server's app.ts assembles it, served on real HTTP, with
// one recording interceptor; the same calls go down every path, and each path must record what
// connect-es's own handlers record: the headers the call sees, its deadline, when and why its signal
// aborts (it succeeds, it fails, its deadline passes, its client goes away), and what the client
// gets.
//
// Left out, because they differ by protocol by design: the context's protocolName and
// requestMethod, content types, and the protocols' own headers (timeouts, compression, user agent).
// Where an interceptor's trailer arrives differs too: REST has no trailers and sends them as headers.
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import {
  type Client,
  Code,
  ConnectError,
  type ContextValues,
  createClient,
  createContextValues,
  type Interceptor,
  type Transport,
} from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import { codeToString } from "@folio/googleapis";
import {
  type AnswerReport,
  createHandlerRunner,
  createHttpTranscoder,
  type NodeHandler,
} from "@folio/http-transcoder";
import { FolderService } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectRequestOptions,
  createInProcessRunner,
  createRpcHandler,
  createTranscodingRouter,
  createUnaryCalls,
  type TranscodingRouter,
} from "../src/index.js";

/** How long a wait for something the server or the client must do may take before it failed. */
const WAIT_MS = 10_000;
/** The deadline the server is given, in milliseconds. */
const SERVER_DEADLINE_MS = 150;

/** The calls each path makes, by the folder id they ask for (the implementation acts on it). */
const CASES = ["succeeds", "fails", "deadline", "client-gone"] as const;
type Case = (typeof CASES)[number];

/** The request headers a call is compared on: the client's own, never a protocol's. */
const COMPARED_REQUEST_HEADERS = ["x-probe", "authorization"] as const;
/** The response metadata the gate, the interceptor and the implementation set. */
const PROBE_METADATA = [
  "x-gate",
  "x-implementation",
  "x-interceptor",
  "x-interceptor-trailer",
  "x-error",
] as const;

/** What a path records of one call. */
interface CallRecord {
  /** The router's request gate ran. */
  readonly gated: boolean;
  /** The compared request headers, as the interceptor and the implementation see them. */
  readonly requestHeaders: { readonly interceptor: Seen; readonly implementation: Seen };
  /** The implementation's `timeoutMs()` says a deadline is set. */
  readonly deadline: boolean;
  /** The signal had aborted when the interceptor's `next()` returned or threw. */
  readonly abortedWhenNextSettled: boolean;
  /** The signal had aborted when the client had its answer (a client that went away has none). */
  readonly abortedWhenAnswered?: boolean;
  /** How the signal ended: the reason's code, `AbortError`, or `not aborted` (waited for, bounded). */
  readonly signal: string;
  /** Whether the signal's reason is the very error the implementation threw (a failing call). */
  readonly reasonIsTheError?: boolean;
  readonly client: ClientOutcome;
}

type Seen = Record<string, string | null>;

/** What the client got: the code, the probe metadata (headers and trailers), and which came as trailers. */
interface ClientOutcome {
  readonly code: string;
  readonly metadata: Seen;
  /** RPC clients only, of a call that succeeded: the probe metadata that came as trailers. */
  readonly trailers?: string[];
}

type PathRecord = Record<Case, CallRecord>;

/** What the server side of one call saw, found by the call's `x-call` request header. */
class ServerSide {
  gated = false;
  interceptorHeaders: Seen = {};
  implementationHeaders: Seen = {};
  deadline = false;
  abortedWhenNextSettled: boolean | undefined;
  signal: AbortSignal | undefined;
  thrown: unknown;
  /** The implementation is running. */
  readonly started = deferred<void>();
  /** The signal's reason, once it aborts. */
  readonly ended = deferred<unknown>();
  /** The interceptor's `next()` returned or threw. */
  readonly nextSettled = deferred<void>();
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

const calls = new Map<string, ServerSide>();

function serverSideOf(header: Headers): ServerSide {
  const side = calls.get(header.get("x-call") ?? "");
  if (side === undefined) throw new ConnectError("a call the test did not make", Code.FailedPrecondition);
  return side;
}

function seen(header: Headers, names: readonly string[]): Seen {
  return Object.fromEntries(names.map((name) => [name, header.get(name)]));
}

/** Resolves with the signal's reason once it aborts. */
function abortOf(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true }),
  );
}

/** `promise`, or a failure naming `what` once `ms` have passed. */
async function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** An abort reason as the recording shows it: a ConnectError's code, or the error's name. */
function reasonKind(reason: unknown): string {
  if (reason instanceof ConnectError) return codeToString(reason.code);
  if (reason instanceof Error) return reason.name;
  return typeof reason;
}

/** Records what the call's interceptors see, and sets a header and a trailer on its answer. */
const recording: Interceptor = (next) => async (req) => {
  const side = serverSideOf(req.header);
  side.interceptorHeaders = seen(req.header, COMPARED_REQUEST_HEADERS);
  side.signal = req.signal;
  void abortOf(req.signal).then(side.ended.resolve);
  try {
    const res = await next(req);
    side.abortedWhenNextSettled = req.signal.aborted;
    side.nextSettled.resolve(undefined);
    res.header.set("x-interceptor", "header");
    res.trailer.set("x-interceptor-trailer", "trailer");
    return res;
  } catch (error) {
    side.abortedWhenNextSettled = req.signal.aborted;
    side.nextSettled.resolve(undefined);
    throw error;
  }
};

/** The router of the server: one unary method with a google.api.http rule, behind the recording interceptor. */
function createTestRouter(): TranscodingRouter {
  const router = createTranscodingRouter({
    interceptors: [recording],
    ...connectRequestOptions(64 * 1024),
    // As the server's call gate: it runs on every path, and a header it sets goes out with the answer.
    requestGate: (context) => {
      serverSideOf(context.requestHeader).gated = true;
      context.responseHeader.set("x-gate", "passed");
    },
  });
  router.service(FolderService, {
    async getFolder(request, context) {
      const side = serverSideOf(context.requestHeader);
      side.implementationHeaders = seen(context.requestHeader, COMPARED_REQUEST_HEADERS);
      side.deadline = context.timeoutMs() !== undefined;
      context.responseHeader.set("x-implementation", "header");
      side.started.resolve(undefined);
      switch (request.id as Case) {
        case "succeeds":
          return { folder: { id: request.id, name: "Folder" } };
        case "fails":
          side.thrown = new ConnectError("no such folder", Code.NotFound, { "x-error": "metadata" });
          throw side.thrown;
        default:
          // Works until the call ends, then fails with its reason, as a query cancelled with it would.
          await within(abortOf(context.signal), "the call's signal aborting");
          throw context.signal.reason;
      }
    },
  });
  return router;
}

/** How the server serves a call: in-process where it can (the server's default), or by connect-es's handlers. */
type Serving = "in-process" | "handlers";

const noReport: AnswerReport = { called() {}, answered() {} };
const noLogger = { error() {} };

/** The server's handler, assembled as app.ts assembles it: REST under /api/, the RPC handler for the rest. */
function createHandler(router: TranscodingRouter, serving: Serving): NodeHandler {
  const inProcess = serving === "in-process";
  const rest = createHttpTranscoder({
    router,
    runner: inProcess ? createInProcessRunner(router.registered) : createHandlerRunner(router),
    services: [FolderService],
  });
  const rpc = createRpcHandler(router, {
    notFound: (_req, res) => {
      res.statusCode = 404;
      res.end();
    },
    logger: noLogger,
    unaryCalls: inProcess
      ? createUnaryCalls({
          registered: router.registered,
          requestOptions: connectRequestOptions(64 * 1024),
          logger: noLogger,
        })
      : undefined,
  });
  const values = (): ContextValues => createContextValues();
  return (req, res) => {
    if (req.url?.startsWith("/api/")) rest(req, res, { contextValues: values(), report: noReport });
    else rpc(req, res, { contextValues: values, report: noReport });
  };
}

/** A server on HTTP/1.1 and one on cleartext HTTP/2, serving the same handler. */
interface Served {
  readonly http1Url: string;
  readonly http2Url: string;
  close(): Promise<void>;
}

async function serve(handler: NodeHandler): Promise<Served> {
  const h1 = http.createServer(handler);
  const h2 = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const listen = (server: http.Server | http2.Http2Server) =>
    new Promise<string>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () =>
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
      );
    });
  const [http1Url, http2Url] = await Promise.all([listen(h1), listen(h2)]);
  return {
    http1Url,
    http2Url,
    async close() {
      const closed = Promise.all([
        new Promise((resolve) => h1.close(resolve)),
        new Promise((resolve) => h2.close(resolve)),
      ]);
      h1.closeAllConnections();
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}

/** How a call is made on a path. */
interface CallOptions {
  readonly id: Case;
  readonly callId: string;
  readonly signal: AbortSignal;
}

type Protocol = "rest" | "connect" | "connect-get" | "grpc" | "grpcweb";

interface Path {
  readonly name: string;
  readonly serving: Serving;
  readonly protocol: Protocol;
  /**
   * The protocol whose recording by connect-es's handlers this path's must equal: its own, and
   * for REST, a Connect GET, the same HTTP request (a GET with no body, over HTTP/1.1).
   */
  readonly reference: Exclude<Protocol, "rest">;
}

const PATHS: readonly Path[] = [
  { name: "REST, in-process runner", serving: "in-process", protocol: "rest", reference: "connect-get" },
  { name: "REST, handler runner", serving: "handlers", protocol: "rest", reference: "connect-get" },
  { name: "Connect, in-process", serving: "in-process", protocol: "connect", reference: "connect" },
  {
    name: "Connect GET, in-process",
    serving: "in-process",
    protocol: "connect-get",
    reference: "connect-get",
  },
  { name: "gRPC, in-process", serving: "in-process", protocol: "grpc", reference: "grpc" },
  { name: "gRPC-Web, in-process", serving: "in-process", protocol: "grpcweb", reference: "grpcweb" },
];

/** The references: each RPC protocol served by connect-es's handlers. */
const BY_HANDLERS: Readonly<Record<Path["reference"], Path>> = {
  connect: {
    name: "Connect, by connect-es's handlers",
    serving: "handlers",
    protocol: "connect",
    reference: "connect",
  },
  "connect-get": {
    name: "Connect GET, by connect-es's handlers",
    serving: "handlers",
    protocol: "connect-get",
    reference: "connect-get",
  },
  grpc: { name: "gRPC, by connect-es's handlers", serving: "handlers", protocol: "grpc", reference: "grpc" },
  grpcweb: {
    name: "gRPC-Web, by connect-es's handlers",
    serving: "handlers",
    protocol: "grpcweb",
    reference: "grpcweb",
  },
};

/**
 * The server's deadline must pass before the client gives up at its own (the `timeoutMs` call
 * option): a client that gives up cancels the request, and the server would see a client gone, not
 * a deadline. So the client keeps a long deadline, and sends the server a short one.
 */
const serverDeadlineFirst: Interceptor = (next) => (req) => {
  if (req.header.has("connect-timeout-ms")) req.header.set("connect-timeout-ms", String(SERVER_DEADLINE_MS));
  if (req.header.has("grpc-timeout")) req.header.set("grpc-timeout", `${SERVER_DEADLINE_MS}m`);
  return next(req);
};

/** The clients of one server, by protocol; closed with the server. */
class Clients {
  readonly #agent = new http.Agent({ keepAlive: true });
  readonly #session: Http2SessionManager;
  readonly #rpc: Record<Exclude<Protocol, "rest">, Client<typeof FolderService>>;

  constructor(readonly served: Served) {
    this.#session = new Http2SessionManager(served.http2Url);
    const http1 = { httpVersion: "1.1", nodeOptions: { agent: this.#agent } } as const;
    const interceptors = [serverDeadlineFirst];
    const client = (transport: Transport) => createClient(FolderService, transport);
    this.#rpc = {
      connect: client(createConnectTransport({ baseUrl: served.http1Url, ...http1, interceptors })),
      "connect-get": client(
        createConnectTransport({ baseUrl: served.http1Url, ...http1, interceptors, useHttpGet: true }),
      ),
      grpc: client(
        createGrpcTransport({ baseUrl: served.http2Url, sessionManager: this.#session, interceptors }),
      ),
      grpcweb: client(createGrpcWebTransport({ baseUrl: served.http1Url, ...http1, interceptors })),
    };
  }

  call(protocol: Protocol, options: CallOptions): Promise<ClientOutcome> {
    const headers = { "x-call": options.callId, "x-probe": "probe value", authorization: "Bearer probe" };
    if (protocol === "rest") return this.#rest(options, headers);
    return rpcOutcome(
      this.#rpc[protocol],
      options.id,
      headers,
      options.signal,
      options.id === "deadline" ? 3 * WAIT_MS : undefined,
    );
  }

  async #rest(options: CallOptions, headers: Record<string, string>): Promise<ClientOutcome> {
    // REST takes its deadline from Grpc-Timeout, as grpc-gateway does.
    if (options.id === "deadline") headers["grpc-timeout"] = `${SERVER_DEADLINE_MS}m`;
    let response: Response;
    try {
      response = await fetch(`${this.served.http1Url}/api/v1/folders/${options.id}`, {
        headers,
        signal: options.signal,
      });
    } catch (error) {
      // What a Connect client reports of a call it cancelled.
      if (options.signal.aborted)
        return { code: codeToString(Code.Canceled), metadata: seen(new Headers(), PROBE_METADATA) };
      throw error;
    }
    const body = (await response.json()) as { error?: { code: string } };
    return {
      code: response.ok ? "ok" : (body.error?.code ?? `HTTP ${response.status}`),
      metadata: seen(response.headers, PROBE_METADATA),
    };
  }

  close(): void {
    this.#agent.destroy();
    this.#session.abort();
  }
}

async function rpcOutcome(
  client: Client<typeof FolderService>,
  id: Case,
  headers: Record<string, string>,
  signal: AbortSignal,
  timeoutMs: number | undefined,
): Promise<ClientOutcome> {
  let header = new Headers();
  let trailer = new Headers();
  try {
    await client.getFolder(
      { id },
      { headers, signal, timeoutMs, onHeader: (h) => (header = h), onTrailer: (t) => (trailer = t) },
    );
  } catch (error) {
    const connectError = ConnectError.from(error);
    return { code: codeToString(connectError.code), metadata: seen(connectError.metadata, PROBE_METADATA) };
  }
  const both = new Headers(header);
  for (const [name, value] of trailer) both.append(name, value);
  return {
    code: "ok",
    metadata: seen(both, PROBE_METADATA),
    trailers: PROBE_METADATA.filter((name) => trailer.has(name)),
  };
}

let nextCallId = 0;

/** Makes one call on a path and records it, server side and client side. */
async function recordCall(path: Path, clients: Clients, id: Case): Promise<CallRecord> {
  const callId = `call-${++nextCallId}`;
  const side = new ServerSide();
  calls.set(callId, side);
  const client = new AbortController();
  const outcome = clients.call(path.protocol, { id, callId, signal: client.signal });
  if (id === "client-gone") {
    await within(side.started.promise, `${path.name}: the implementation starting`);
    client.abort();
  }
  const clientOutcome = await within(outcome, `${path.name}: the client's outcome of ${id}`);
  const abortedWhenAnswered = side.signal?.aborted === true;
  // The client has its answer (or has gone): by now the call is over, and its signal aborted.
  const reason = await within(side.ended.promise, `${path.name}: the signal of ${id} aborting`).then(
    (value) => ({ value }),
    () => undefined,
  );
  await within(side.nextSettled.promise, `${path.name}: the interceptor's next() of ${id} settling`);
  return {
    gated: side.gated,
    requestHeaders: { interceptor: side.interceptorHeaders, implementation: side.implementationHeaders },
    deadline: side.deadline,
    abortedWhenNextSettled: side.abortedWhenNextSettled ?? false,
    ...(id === "client-gone" ? {} : { abortedWhenAnswered }),
    signal: reason === undefined ? "not aborted" : reasonKind(reason.value),
    ...(id === "fails" ? { reasonIsTheError: reason !== undefined && reason.value === side.thrown } : {}),
    client: clientOutcome,
  };
}

describe("a call's lifecycle, on every path", () => {
  const clientsOf = new Map<Serving, Clients>();
  const recordings = new Map<string, Promise<PathRecord>>();

  beforeAll(async () => {
    const router = createTestRouter();
    for (const serving of ["in-process", "handlers"] as const) {
      clientsOf.set(serving, new Clients(await serve(createHandler(router, serving))));
    }
  });
  afterAll(async () => {
    for (const clients of clientsOf.values()) {
      clients.close();
      await clients.served.close();
    }
  });

  /** A path's recording, made once: its calls one after the other. */
  function recordingOf(path: Path): Promise<PathRecord> {
    let recorded = recordings.get(path.name);
    if (recorded === undefined) {
      const clients = clientsOf.get(path.serving) as Clients;
      recorded = (async () => {
        const record: Partial<PathRecord> = {};
        for (const id of CASES) record[id] = await recordCall(path, clients, id);
        return record as PathRecord;
      })();
      recordings.set(path.name, recorded);
    }
    return recorded;
  }

  it("connect-es's handlers end a call when it succeeds, fails, passes its deadline or loses its client", async () => {
    const requestHeaders = {
      interceptor: { "x-probe": "probe value", authorization: "Bearer probe" },
      implementation: { "x-probe": "probe value", authorization: "Bearer probe" },
    };
    const none = {
      "x-gate": null,
      "x-implementation": null,
      "x-interceptor": null,
      "x-interceptor-trailer": null,
      "x-error": null,
    };
    const expected = (clientGoneReason: string): PathRecord => ({
      succeeds: {
        gated: true,
        requestHeaders,
        deadline: false,
        // Not while the interceptors run: the call ends once its answer is ready, before it is sent.
        abortedWhenNextSettled: false,
        abortedWhenAnswered: true,
        signal: "AbortError",
        client: {
          code: "ok",
          metadata: {
            ...none,
            "x-gate": "passed",
            "x-implementation": "header",
            "x-interceptor": "header",
            "x-interceptor-trailer": "trailer",
          },
          trailers: ["x-interceptor-trailer"],
        },
      },
      fails: {
        gated: true,
        requestHeaders,
        deadline: false,
        abortedWhenNextSettled: false,
        abortedWhenAnswered: true,
        signal: "not_found",
        reasonIsTheError: true,
        client: {
          code: "not_found",
          metadata: { ...none, "x-gate": "passed", "x-implementation": "header", "x-error": "metadata" },
        },
      },
      deadline: {
        gated: true,
        requestHeaders,
        deadline: true,
        abortedWhenNextSettled: true,
        abortedWhenAnswered: true,
        signal: "deadline_exceeded",
        client: {
          code: "deadline_exceeded",
          metadata: { ...none, "x-gate": "passed", "x-implementation": "header" },
        },
      },
      "client-gone": {
        gated: true,
        requestHeaders,
        deadline: false,
        abortedWhenNextSettled: true,
        signal: clientGoneReason,
        client: { code: "canceled", metadata: none },
      },
    });
    // Only the reason a client gone gives differs, as connect-node's request signal gives it. HTTP/2
    // has reset codes: the client's CANCEL is `canceled`. HTTP/1.1 has none: the reason is the
    // request's error, `aborted` (ECONNRESET) when the connection closes under a request whose body
    // was never read (a GET), and none (an AbortError) once its body was read: Node destroys a
    // request read to its end, and records no error on it after.
    expect(await recordingOf(BY_HANDLERS.connect)).toEqual(expected("AbortError"));
    expect(await recordingOf(BY_HANDLERS.grpcweb)).toEqual(expected("AbortError"));
    expect(await recordingOf(BY_HANDLERS["connect-get"])).toEqual(expected("aborted"));
    expect(await recordingOf(BY_HANDLERS.grpc)).toEqual(expected("canceled"));
  });

  it.each(PATHS)("$name: the lifecycle of connect-es's handlers", async (path) => {
    const reference = await recordingOf(BY_HANDLERS[path.reference]);
    const recorded = await recordingOf(path);
    expect(recorded).toEqual(path.protocol === "rest" ? withoutTrailers(reference) : reference);
  });
});

/** A recording as a REST client sees it: no trailers, the interceptor's trailer among the headers. */
function withoutTrailers(record: PathRecord): PathRecord {
  const rest: Partial<PathRecord> = {};
  for (const id of CASES) {
    const { trailers: _trailers, ...client } = record[id].client;
    rest[id] = { ...record[id], client };
  }
  return rest as PathRecord;
}
