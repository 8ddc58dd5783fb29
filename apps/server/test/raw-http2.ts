// A bare HTTP/2 client that writes frames as a hostile peer would: streams beyond the advertised
// limit, resets in a loop. Node's own client obeys the server's settings, so it cannot.
import net from "node:net";

/** Frame types (RFC 9113, section 6). */
export const FRAME = { HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, GOAWAY: 0x7 } as const;
/** Error codes (RFC 9113, section 7). */
export const ERROR = { CANCEL: 0x8, REFUSED_STREAM: 0x7 } as const;

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** A frame received from the server. */
export interface Frame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  readonly payload: Buffer;
}

function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type, 3);
  header.writeUInt8(flags, 4);
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}

/** An HPACK literal header field without indexing, its name from the static table (index < 15). */
function literal(index: number, value: string): Buffer {
  return Buffer.concat([Buffer.from([index, value.length]), Buffer.from(value)]);
}

/**
 * HEADERS of `GET <path>` ending the stream (END_STREAM | END_HEADERS), HPACK-encoded with the
 * static table and literals only.
 */
export function getRequest(streamId: number, path = "/slow"): Buffer {
  const block = Buffer.concat([
    Buffer.from([0x82, 0x86]), // :method GET, :scheme http
    literal(0x04, path), // :path, literal without indexing
    literal(0x01, "localhost"), // :authority
  ]);
  return frame(FRAME.HEADERS, 0x5, streamId, block);
}

/**
 * HEADERS of a JSON `POST <path>` that leave the stream open (END_HEADERS only): the server waits
 * for a body that never comes.
 */
export function openPost(streamId: number, path: string): Buffer {
  const contentType = "application/json";
  const block = Buffer.concat([
    Buffer.from([0x83, 0x86]), // :method POST, :scheme http
    literal(0x04, path), // :path
    literal(0x01, "localhost"), // :authority
    // content-type: static index 31, which takes a second byte (15 + 16) in a 4-bit prefix.
    Buffer.from([0x0f, 0x10, contentType.length]),
    Buffer.from(contentType),
  ]);
  return frame(FRAME.HEADERS, 0x4, streamId, block);
}

/** RST_STREAM of a stream with an error code. */
export function reset(streamId: number, code: number = ERROR.CANCEL): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(code);
  return frame(FRAME.RST_STREAM, 0, streamId, payload);
}

/** A raw HTTP/2 connection: the preface and an empty SETTINGS are sent on connect. */
export interface RawHttp2 {
  readonly socket: net.Socket;
  /** Every frame received so far. */
  readonly frames: Frame[];
  write(bytes: Buffer): void;
  /** Resolves when the server has closed the connection. */
  readonly closed: Promise<void>;
}

/** Opens a raw HTTP/2 connection to a local port. */
export async function connectRawHttp2(port: number): Promise<RawHttp2> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const frames: Frame[] = [];
  let pending = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < 9 + length) break;
      frames.push({
        type: pending.readUInt8(3),
        flags: pending.readUInt8(4),
        streamId: pending.readUInt32BE(5) & 0x7fffffff,
        payload: pending.subarray(9, 9 + length),
      });
      pending = pending.subarray(9 + length);
    }
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0, Buffer.alloc(0))]));
  return { socket, frames, write: (bytes) => socket.write(bytes), closed };
}
