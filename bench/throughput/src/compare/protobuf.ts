// The few protobuf bytes the load generators send, written by hand (the messages are tiny):
// ListProjectsRequest { int32 page_size = 1 } and CreateFolderRequest { string name = 1 }.

function varint(n: number): number[] {
  const bytes: number[] = [];
  let value = n >>> 0;
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return bytes;
}

/** ListProjectsRequest with `page_size` (field 1, varint: tag 0x08). */
export function listProjectsRequest(pageSize: number): Uint8Array {
  return Uint8Array.from([0x08, ...varint(pageSize)]);
}

/** CreateFolderRequest with `name` (field 1, length-delimited: tag 0x0a). */
export function createFolderRequest(name: string): Uint8Array {
  const utf8 = Buffer.from(name, "utf8");
  return Uint8Array.from([0x0a, ...varint(utf8.byteLength), ...utf8]);
}

/** A gRPC length-prefixed message: flag 0 (not compressed), 4-byte big-endian length, the bytes. */
export function grpcFrame(message: Uint8Array): Uint8Array {
  const frame = new Uint8Array(5 + message.byteLength);
  new DataView(frame.buffer).setUint32(1, message.byteLength);
  frame.set(message, 5);
  return frame;
}
