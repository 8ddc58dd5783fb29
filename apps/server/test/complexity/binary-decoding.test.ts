// Decoding a CreateFolder request from protobuf binary (gRPC, Connect's application/proto) costs
// time linear in the body, with the server's options (unknown fields read and dropped).
import { fromBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { CreateFolderRequestSchema } from "@folio/proto";
import { connectRequestOptions } from "@folio/rpc-protocols";
import { describe, it } from "vitest";
import type { InputFamily } from "./costliest-input.js";
import { expectLinearCost } from "./linear-cost.js";

/** Half the 1 MiB body limit: 2N is the largest body the server reads (see linear-cost.ts on N). */
const SIZE = 1 << 19;

/** The server's binary options (every protocol's: the router's and the in-process calls'). */
const OPTIONS = connectRequestOptions(2 * SIZE).binaryOptions;

/** A field number CreateFolderRequest does not have. */
const UNKNOWN = 100;

/** A body of `count` copies of what `write` writes. */
function repeated(count: number, write: (writer: BinaryWriter) => void): Uint8Array {
  const writer = new BinaryWriter();
  for (let i = 0; i < count; i++) write(writer);
  return writer.finish();
}

/** A body whose name (field 1) is `bytes`. */
function nameOf(bytes: Uint8Array): Uint8Array {
  return new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(bytes).finish();
}

/** Binary bodies of about `size` bytes that make a decoder work hardest. */
const BINARY_BODIES: readonly InputFamily<Uint8Array>[] = [
  { label: "a long name", build: (size) => nameOf(new Uint8Array(size).fill(0x61)) },
  { label: "a name of invalid UTF-8", build: (size) => nameOf(new Uint8Array(size).fill(0xff)) },
  {
    label: "a name of combining marks",
    build: (size) => nameOf(Buffer.from(`a${"\u0301".repeat(size >> 2)}${"\u0316".repeat(size >> 2)}`)),
  },
  {
    label: "the name field repeated",
    build: (size) => repeated(size / 3, (w) => w.tag(1, WireType.LengthDelimited).string("a")),
  },
  {
    label: "many unknown varint fields",
    build: (size) => repeated(size / 3, (w) => w.tag(UNKNOWN, WireType.Varint).uint32(1)),
  },
  {
    label: "many unknown ten-byte varints",
    build: (size) => repeated(size / 12, (w) => w.tag(UNKNOWN, WireType.Varint).int64(-1n)),
  },
  {
    label: "many empty unknown length-delimited fields",
    build: (size) =>
      repeated(size / 3, (w) => w.tag(UNKNOWN, WireType.LengthDelimited).bytes(new Uint8Array(0))),
  },
  {
    label: "many unknown fixed64 fields",
    build: (size) => repeated(size / 10, (w) => w.tag(UNKNOWN, WireType.Bit64).fixed64(1n)),
  },
  {
    label: "many empty unknown groups",
    build: (size) =>
      repeated(size / 4, (w) => w.tag(UNKNOWN, WireType.StartGroup).tag(UNKNOWN, WireType.EndGroup)),
  },
  {
    label: "deeply nested unknown groups",
    build: (size) => {
      const writer = new BinaryWriter();
      for (let i = 0; i < size / 4; i++) writer.tag(UNKNOWN, WireType.StartGroup);
      for (let i = 0; i < size / 4; i++) writer.tag(UNKNOWN, WireType.EndGroup);
      return writer.finish();
    },
  },
  {
    label: "one unknown group of many fields",
    build: (size) => {
      const writer = new BinaryWriter().tag(UNKNOWN, WireType.StartGroup);
      for (let i = 0; i < size / 3; i++) writer.tag(UNKNOWN + 1, WireType.Varint).uint32(1);
      return writer.tag(UNKNOWN, WireType.EndGroup).finish();
    },
  },
];

/** Decodes `bytes`, a refusal included: a refused body is an outcome, not a failure of the test. */
function decode(bytes: Uint8Array): unknown {
  try {
    return fromBinary(CreateFolderRequestSchema, bytes, OPTIONS);
  } catch (error) {
    return error;
  }
}

describe("fromBinary decodes a CreateFolder request in time linear in the body", () => {
  it.each(BINARY_BODIES.map((body) => [body.label, body] as const))("%s", async (label, body) => {
    await expectLinearCost({ label: `fromBinary, ${label}`, size: SIZE, input: body.build, step: decode });
  });
});
