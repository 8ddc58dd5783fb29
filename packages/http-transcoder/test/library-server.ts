/**
 * The server the tests drive: the test API served like a real server would, Connect (and gRPC,
 * gRPC-Web) by the router's handlers and REST by the transcoder, on one port. The implementation
 * records what it received, so that tests can check what a REST request turned into.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import type { AddressInfo } from "node:net";
import { create, type DescMessage, type JsonValue, type MessageShape, toJson } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type ConnectRouterOptions,
  type ContextValues,
  createConnectRouter,
  createContextKey,
  createContextValues,
  type HandlerContext,
  type Interceptor,
  type ServiceImpl,
} from "@connectrpc/connect";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import {
  createHandlerRunner,
  createHttpTranscoder,
  type HttpTranscoderOptions,
  type MethodRunner,
} from "../src/index.js";
import { LibraryService, RootFileService } from "./gen/transcodertest/v1/library_pb.js";

/** What the implementation received in a call. */
export interface Received {
  readonly method: string;
  /** The request message in the JSON mapping, fields with default values left out. */
  readonly request: JsonValue;
  /** The request headers. */
  readonly header: Readonly<Record<string, string>>;
  /** The HTTP method and the protocol the call says it came by. */
  readonly requestMethod: string;
  readonly protocolName: string;
}

/** A running test server. */
export interface LibraryServer {
  readonly baseUrl: string;
  /** Calls received since the server started, most recent last. */
  readonly received: Received[];
  /** Methods whose call was cancelled (its signal aborted), most recent last. */
  readonly cancelled: string[];
  close(): Promise<void>;
}

/** A context value the server sets from a request header, to check that contextValues is used. */
export const tenantKey = createContextKey<string>("none", { description: "tenant" });

/**
 * Stands in for an authentication interceptor: refuses a token named "expired" the way a bearer
 * token verifier does (RFC 6750, section 3: a WWW-Authenticate challenge), and marks responses so
 * that tests see it ran.
 */
const authInterceptor: Interceptor = (next) => async (req) => {
  if (req.header.get("authorization") === "Bearer expired") {
    throw new ConnectError("access token expired", Code.Unauthenticated, {
      "www-authenticate": 'Bearer error="invalid_token"',
    });
  }
  const res = await next(req);
  res.header.set("x-intercepted", "yes");
  return res;
};

function record<Desc extends DescMessage>(
  received: Received[],
  method: string,
  schema: Desc,
  request: MessageShape<Desc>,
  context: HandlerContext,
): void {
  const header: Record<string, string> = {};
  context.requestHeader.forEach((value, key) => {
    header[key] = value;
  });
  received.push({
    method,
    request: toJson(schema, request),
    header,
    requestMethod: context.requestMethod,
    protocolName: context.protocolName,
  });
  context.responseHeader.set("x-tenant", context.values.get(tenantKey));
}

function libraryImpl(received: Received[], cancelled: string[]): ServiceImpl<typeof LibraryService> {
  const m = LibraryService.method;
  return {
    getShelf(req, context) {
      record(received, "GetShelf", m.getShelf.input, req, context);
      switch (req.name) {
        case "shelves/missing":
          throw new ConnectError("shelf not found", Code.NotFound, undefined, [
            { desc: ErrorInfoSchema, value: { reason: "SHELF_NOT_FOUND", domain: "library.example" } },
          ]);
        case "shelves/crash":
          throw new Error("connection to db://admin:hunter2@10.0.0.1 refused");
        case "shelves/forbidden":
          throw new ConnectError("not your shelf", Code.PermissionDenied, { "x-reason": "policy" });
      }
      return { name: req.name, id: req.name.split("/").pop() ?? "", theme: "echo" };
    },
    getDefaultShelf(req, context) {
      record(received, "GetDefaultShelf", m.getDefaultShelf.input, req, context);
      return { name: "shelves/default", id: "default" };
    },
    createShelf(req, context) {
      record(received, "CreateShelf", m.createShelf.input, req, context);
      return { shelf: req.shelf, etag: "not sent over REST" };
    },
    updateShelf(req, context) {
      record(received, "UpdateShelf", m.updateShelf.input, req, context);
      return req.shelf ?? {};
    },
    listBooks(req, context) {
      record(received, "ListBooks", m.listBooks.input, req, context);
      // Pages of one book: a second page follows the first, none the second.
      const nextPageToken = req.pageSize === 1 && req.pageToken === "" ? "page 2/+" : "";
      return {
        books: [{ name: `${req.parent}/books/1`, title: "One", details: { publisher: "P" } }],
        nextPageToken,
      };
    },
    getBook(req, context) {
      record(received, "GetBook", m.getBook.input, req, context);
      return { name: req.name };
    },
    createBook(req, context) {
      record(received, "CreateBook", m.createBook.input, req, context);
      const name = `${req.parent}/books/${req.bookId}`;
      return req.book ? { ...req.book, name } : { name };
    },
    updateBook(req, context) {
      record(received, "UpdateBook", m.updateBook.input, req, context);
      return req.book ?? {};
    },
    replaceBook(req, context) {
      record(received, "ReplaceBook", m.replaceBook.input, req, context);
      return { name: req.name, title: req.title, tags: req.tags, details: req.details };
    },
    deleteBook(req, context) {
      record(received, "DeleteBook", m.deleteBook.input, req, context);
      return {};
    },
    publishBook(req, context) {
      record(received, "PublishBook", m.publishBook.input, req, context);
      return { name: req.name };
    },
    setBookTags(req, context) {
      record(received, "SetBookTags", m.setBookTags.input, req, context);
      return { name: req.name, tags: req.tags };
    },
    searchBooks(req, context) {
      record(received, "SearchBooks", m.searchBooks.input, req, context);
      return { books: [{ name: `${req.parent}/books/found`, title: req.query }] };
    },
    checkBook(req, context) {
      record(received, "CheckBook", m.checkBook.input, req, context);
      // GetBook finds every book: only CheckBook knows of a missing one.
      if (req.name.endsWith("/books/missing")) throw new ConnectError("book not found", Code.NotFound);
      return {};
    },
    getFile(req, context) {
      record(received, "GetFile", m.getFile.input, req, context);
      return { path: req.path };
    },
    getAuthor(req, context) {
      record(received, "GetAuthor", m.getAuthor.input, req, context);
      return { author: req.author };
    },
    uploadCover(req, context) {
      record(received, "UploadCover", m.uploadCover.input, req, context);
      return {
        contentType: "text/plain",
        data: new TextEncoder().encode(`stored ${req.cover?.data.byteLength ?? 0} bytes`),
      };
    },
    getCover(req, context) {
      record(received, "GetCover", m.getCover.input, req, context);
      // A PNG signature for shelf s1; an HttpBody that names no content type for any other.
      return req.name === "shelves/s1"
        ? { contentType: "image/png", data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) }
        : { data: new Uint8Array([1, 2, 3]) };
    },
    echo(req, context) {
      record(received, "Echo", m.echo.input, req, context);
      return req;
    },
    async *watchBooks(req, context) {
      record(received, "WatchBooks", m.watchBooks.input, req, context);
      if (req.parent === "shelves/forbidden") {
        throw new ConnectError("not your shelf", Code.PermissionDenied);
      }
      context.responseHeader.set("x-watch", "started");
      context.signal.addEventListener("abort", () => cancelled.push("WatchBooks"));
      if (req.parent === "shelves/held") {
        // One message, then the stream stays open until the client goes away.
        yield { name: `${req.parent}/books/1`, title: "Book 1" };
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
        return;
      }
      for (let i = 1; i <= req.count && !context.signal.aborted; i++) {
        yield { name: `${req.parent}/books/${i}`, title: `Book ${i}` };
        // A long stream takes its time, as a real one would.
        if (req.count > 100) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      if (req.fail) {
        throw new ConnectError("shelf closed", Code.Unavailable, undefined, [
          { desc: ErrorInfoSchema, value: { reason: "SHELF_CLOSED", domain: "library.example" } },
        ]);
      }
    },
    async *downloadShelf(req, context) {
      record(received, "DownloadShelf", m.downloadShelf.input, req, context);
      const encoder = new TextEncoder();
      yield { contentType: "text/csv", data: encoder.encode("title,pages\n") };
      if (req.fail) throw new ConnectError("disk gone", Code.DataLoss);
      yield { data: encoder.encode("One,100\n") };
      yield { data: encoder.encode("Two,200\n") };
    },
    ping() {
      return create(m.ping.output);
    },
  };
}

/**
 * Starts the test server on 127.0.0.1, on a port of the system's choosing. REST requests are
 * those under /v1/; everything else goes to Connect.
 */
export async function startLibraryServer(
  transcoderOptions: Partial<HttpTranscoderOptions> = {},
  {
    http2 = false,
    runner,
    requestGate,
  }: {
    http2?: boolean;
    /** The runner REST calls methods through, made of the default one over the router's handlers. */
    runner?: (byHandlers: MethodRunner) => MethodRunner;
    requestGate?: ConnectRouterOptions["requestGate"];
  } = {},
): Promise<LibraryServer> {
  const received: Received[] = [];
  const cancelled: string[] = [];
  const contextValues = (req: { headers: Record<string, string | string[] | undefined> }) =>
    createContextValues().set(tenantKey, String(req.headers["x-tenant"] ?? "none"));
  const router = createConnectRouter({
    interceptors: [authInterceptor],
    ...(requestGate === undefined ? {} : { requestGate }),
  });
  router.service(LibraryService, libraryImpl(received, cancelled));
  const connect = serveConnect(router, contextValues);
  const rest = createHttpTranscoder({
    router,
    ...(runner === undefined ? {} : { runner: runner(createHandlerRunner(router)) }),
    contextValues,
    successStatus: (method) => (method.name.startsWith("Create") ? 201 : 200),
    ...transcoderOptions,
  });
  const handler: Handler = (req, res) => {
    if (req.url?.startsWith("/v1/") || req.url === "/v1") {
      rest(req, res);
    } else {
      connect(req, res);
    }
  };
  return { ...(await listen(handler, http2)), received, cancelled };
}

/** Starts a server whose transcoder serves RootFileService (`/{path=**}`) on every path. */
export async function startRootFileServer(): Promise<Omit<LibraryServer, "received" | "cancelled">> {
  const router = createConnectRouter().service(RootFileService, {
    getRootFile: (req) => ({ path: req.path }),
  });
  return listen(createHttpTranscoder({ router }), false);
}

type Handler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

/** Serves a router's handlers over Connect, gRPC and gRPC-Web, as connectNodeAdapter does. */
function serveConnect(
  router: ConnectRouter,
  contextValues: (req: IncomingMessage | Http2ServerRequest) => ContextValues,
): Handler {
  const byPath = new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
  return (req, res) => {
    const handler = byPath.get((req.url ?? "").split("?", 1)[0] ?? "");
    if (handler === undefined) {
      res.statusCode = 404;
      res.end();
      return;
    }
    handler(universalRequestFromNodeRequest(req, res, undefined, contextValues(req)))
      .then((response) => universalResponseToNodeResponse(response, res))
      .catch(() => res.destroy());
  };
}

/** Serves `handler` on 127.0.0.1, on a port of the system's choosing. */
async function listen(
  handler: Handler,
  http2: boolean,
): Promise<Omit<LibraryServer, "received" | "cancelled">> {
  // HTTP/2 without TLS (h2c, prior knowledge), as gRPC clients speak it.
  const server = http2 ? createHttp2Server(handler) : createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ("closeAllConnections" in server) {
          server.closeAllConnections();
        }
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A Book as REST returns it when only its name is set: every field, with its default or null. */
export const EMPTY_BOOK_JSON = {
  name: "",
  title: "",
  tags: [],
  pages: null,
  genre: "GENRE_UNSPECIFIED",
  publishTime: null,
  details: null,
  labels: {},
  isbn: "0",
  ebookUrl: null,
  printRun: null,
};
