import { type DescMethod, fromBinary, type Message, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectErrorFromJson, connectErrorFromJsonValue } from "./connect-error-json.js";
import { type MethodCall, type MethodRunner, procedurePath, type RunningCall } from "./method-runner.js";

/** A handler of a Connect router: what `router.handlers` holds (connect-es's `UniversalHandler`). */
type RouterHandler = ConnectRouter["handlers"][number];
/** What a router's handler answers (connect-es's `UniversalServerResponse`). */
type HandlerResponse = Awaited<ReturnType<RouterHandler>>;

/**
 * The default {@link MethodRunner}: calls the handlers of a Connect router, as a Connect client in
 * the same process would (https://connectrpc.com/docs/protocol), with the request message in
 * binary. The router's interceptors, request gate and context values apply as on every other
 * protocol; the gate runs once the transcoder has read the body, as connect-es's handlers run it.
 *
 * The handler is called directly, not through a transport: connect-es's public API has no
 * in-memory transport over an existing router (`createRouterTransport` builds its own, and passes
 * no context values), so the few framing rules of the Connect protocol are written here.
 */
export function createHandlerRunner(router: Pick<ConnectRouter, "handlers">): MethodRunner {
  const handlers = new Map<string, RouterHandler>(
    router.handlers.map((handler) => [handler.requestPath, handler]),
  );
  const handlerOf = (method: DescMethod) => handlers.get(procedurePath(method));
  return {
    serves: (method) => handlerOf(method) !== undefined,
    begin(call) {
      const handler = handlerOf(call.method);
      if (handler === undefined)
        throw new ConnectError(`no handler for ${call.method.name}`, Code.Unimplemented);
      return handlerCall(handler, call);
    },
  };
}

/** A call of a router's handler: it begins when the transcoder sends it the request message. */
function handlerCall(handler: RouterHandler, call: MethodCall): RunningCall {
  const responseHeader = new Headers();
  const responseTrailer = new Headers();
  // The deadline runs from the call's beginning, before the body was read, as on every path.
  const deadline = call.timeoutMs === undefined ? undefined : Date.now() + call.timeoutMs;
  const send = async (body: Uint8Array, streaming: boolean): Promise<HandlerResponse> => {
    const header = new Headers(call.requestHeader);
    header.set("content-type", streaming ? "application/connect+proto" : "application/proto");
    header.set("connect-protocol-version", "1");
    header.set("content-length", String(body.byteLength));
    if (deadline !== undefined) {
      header.set("connect-timeout-ms", String(Math.max(0, Math.ceil(deadline - Date.now()))));
    }
    const response = await handler({
      httpVersion: "1.1",
      url: call.url,
      method: "POST",
      header,
      body: bytesOf(body),
      signal: call.signal,
      contextValues: call.contextValues,
    });
    // A unary call's trailers are its `trailer-` headers; a stream's come in its end message.
    response.header?.forEach((value, name) => {
      if (name.startsWith("trailer-")) responseTrailer.append(name.slice(8), value);
      else responseHeader.append(name, value);
    });
    return response;
  };
  const { method } = call;
  return {
    responseHeader,
    responseTrailer,
    async unary(message) {
      const response = await send(toBinary(method.input, message), false);
      const bytes = await readAll(response.body);
      if (response.status !== 200) throw connectErrorFromJson(bytes, response.status);
      return fromBinary(method.output, bytes);
    },
    async *serverStream(message: Message) {
      const response = await send(envelope(0, toBinary(method.input, message)), true);
      if (response.status !== 200) throw connectErrorFromJson(await readAll(response.body), response.status);
      for await (const frame of envelopes(response.body)) {
        if ((frame.flags & endStreamFlag) === 0) {
          yield fromBinary(method.output, frame.data);
          continue;
        }
        const end = parseEndStream(frame.data);
        for (const [name, value] of end.metadata) responseTrailer.append(name, value);
        if (end.error !== undefined) throw end.error;
        return;
      }
      throw new ConnectError("the stream of the handler ended without an end-stream message", Code.Internal);
    },
    cancel() {
      // The handler was never called: no call exists to end.
    },
  };
}

/** The flag of a Connect stream's last message (https://connectrpc.com/docs/protocol#streaming-response). */
const endStreamFlag = 0b10;

/** A message of a Connect stream: five bytes of flags and length, then the data. */
function envelope(flags: number, data: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(data.byteLength + 5);
  bytes[0] = flags;
  new DataView(bytes.buffer).setUint32(1, data.byteLength);
  bytes.set(data, 5);
  return bytes;
}

/** The messages of a Connect stream's body, as they arrive. */
async function* envelopes(
  body: AsyncIterable<Uint8Array> | undefined,
): AsyncGenerator<{ flags: number; data: Uint8Array }> {
  let buffered: Uint8Array = new Uint8Array(0);
  for await (const chunk of body ?? []) {
    buffered = concat(buffered, chunk);
    while (buffered.byteLength >= 5) {
      const length = new DataView(buffered.buffer, buffered.byteOffset).getUint32(1);
      if (buffered.byteLength < 5 + length) break;
      yield { flags: buffered[0] ?? 0, data: buffered.subarray(5, 5 + length) };
      buffered = buffered.subarray(5 + length);
    }
  }
  if (buffered.byteLength > 0)
    throw new ConnectError("the stream of the handler ended mid-message", Code.Internal);
}

/** A Connect stream's end message: `{"error": {...}, "metadata": {"name": ["value"]}}`. */
function parseEndStream(data: Uint8Array): { error: ConnectError | undefined; metadata: [string, string][] } {
  const json = JSON.parse(new TextDecoder().decode(data)) as {
    error?: unknown;
    metadata?: Record<string, string[]>;
  };
  const metadata = Object.entries(json.metadata ?? {}).flatMap(([name, values]) =>
    values.map((value): [string, string] => [name, value]),
  );
  const error =
    json.error === undefined || json.error === null ? undefined : connectErrorFromJsonValue(json.error, 200);
  return { error, metadata };
}

async function* bytesOf(data: Uint8Array): AsyncGenerator<Uint8Array> {
  yield data;
}

/** A response body in one piece. The handler runs in this process: no limit but its own. */
async function readAll(body: AsyncIterable<Uint8Array> | undefined): Promise<Uint8Array> {
  let all: Uint8Array = new Uint8Array(0);
  for await (const chunk of body ?? []) all = concat(all, chunk);
  return all;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const joined = new Uint8Array(a.byteLength + b.byteLength);
  joined.set(a);
  joined.set(b, a.byteLength);
  return joined;
}
