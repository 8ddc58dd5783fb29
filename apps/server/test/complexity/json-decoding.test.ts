// Decoding a CreateFolder request from JSON costs time linear in the body, as each protocol does it:
// Connect (the body's UTF-8 decoded, then fromJsonString, which also rejects duplicate keys) and
// REST (JSON.parse, then the route's request reader: fromJson, and on a failure the search for the
// field at fault); unknown fields are refused, as the server refuses them.
import { fromJsonString, type JsonValue } from "@bufbuild/protobuf";
import { collectHttpRoutes } from "@folio/http-transcoder";
import { CreateFolderRequestSchema } from "@folio/proto";
import { describe, it } from "vitest";
import { services } from "../../src/services/api.js";
import { JSON_BODIES } from "./json-bodies.js";
import { expectLinearCost } from "./linear-cost.js";
import { createRequestMessageReader } from "./package-internals.js";

/**
 * An eighth of the 1 MiB body limit, so that 2N is a quarter of it: the keys of a body of many keys
 * (a hash table, and V8's table of strings it looks each key up in) outgrow a core's cache from
 * about 8 Ki keys on, and JSON.parse's cost per key grows with the memory's latency, not with the
 * count: 0.12 µs a key at 8 Ki keys, 0.15 at 32 Ki, 0.2 at 64 Ki, about 0.45 from 512 Ki keys on.
 * Measured from half the limit to the limit beside two CPU burners, such a body read 2.3 to 3.1,
 * the caches and not the decoder; from 128 to 256 KiB, 2.2 to 2.5.
 */
const SIZE = 1 << 17;

/** The server's JSON options (@folio/rpc-protocols' connectRequestOptions): unknown fields refused. */
const OPTIONS = { ignoreUnknownFields: false };
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

const createFolder = collectHttpRoutes(services).find((route) => route.method.name === "CreateFolder");
if (createFolder === undefined) throw new Error("no REST route for CreateFolder");
/** The transcoder's reader of the route's request (it refuses unknown fields itself). */
const readCreateFolder = createRequestMessageReader(createFolder, {});

/** Runs `decode`, a refusal included: a refused body is an outcome, not a failure of the test. */
function outcome(decode: () => unknown): unknown {
  try {
    return decode();
  } catch (error) {
    return error;
  }
}

const cases = JSON_BODIES.map((body) => [body.label, body] as const);

describe("Connect JSON (fromJsonString) decodes in time linear in the body", () => {
  it.each(cases)("%s", async (label, body) => {
    await expectLinearCost({
      label: `fromJsonString, ${label}`,
      size: SIZE,
      input: (size) => encoder.encode(body.build(size)),
      step: (bytes) => outcome(() => fromJsonString(CreateFolderRequestSchema, utf8.decode(bytes), OPTIONS)),
    });
  });
});

describe("REST JSON (JSON.parse, then the route's reader) decodes in time linear in the body", () => {
  it.each(cases)("%s", async (label, body) => {
    await expectLinearCost({
      label: `JSON.parse and the REST reader, ${label}`,
      size: SIZE,
      input: (size) => encoder.encode(body.build(size)),
      step: (bytes) => outcome(() => readCreateFolder(JSON.parse(utf8.decode(bytes)) as JsonValue, [], "")),
    });
  });
});
