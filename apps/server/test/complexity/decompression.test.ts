// Inflating a compressed request body costs time linear in what it inflates to, however well it
// compresses: gzip (and brotli, which the server accepts too) of data that shrinks a thousandfold,
// and a body of many tiny gzip members; and the server's own inflating (connect-es's gzip, behind
// the body limit) stops at the limit.
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { compressionGzip } from "@connectrpc/connect-node";
import { describe, it } from "vitest";
import { expectLinearCost } from "./linear-cost.js";

/** Half the 1 MiB body limit, inflated: 2N is the most the server inflates (see linear-cost.ts on N). */
const SIZE = 1 << 19;

/** The server's body limit (MAX_REQUEST_BODY_BYTES' default). */
const BODY_LIMIT = 1 << 20;

/** Refusals are outcomes: a body inflating past the limit is refused. */
async function outcome(inflate: () => Promise<unknown>): Promise<unknown> {
  try {
    return await inflate();
  } catch (error) {
    return error;
  }
}

/** The gzip of `size` zero bytes: about a thousandth of its size. */
const gzippedZeros = (size: number) => gzipSync(Buffer.alloc(size), { level: 9 });

describe("request bodies inflate in time linear in their inflated size", () => {
  it("gunzipSync of zeros", async () => {
    await expectLinearCost({ label: "gunzipSync, zeros", size: SIZE, input: gzippedZeros, step: gunzipSync });
  });

  it("gunzipSync of many empty gzip members, one after another", async () => {
    const member = gzipSync(Buffer.alloc(0));
    await expectLinearCost({
      label: "gunzipSync, empty members",
      size: 1 << 16,
      input: (size) => Buffer.concat(Array.from({ length: size }, () => member)),
      step: gunzipSync,
    });
  });

  it("brotliDecompressSync of zeros", async () => {
    await expectLinearCost({
      label: "brotliDecompressSync, zeros",
      size: SIZE,
      input: (size) => brotliCompressSync(Buffer.alloc(size)),
      step: brotliDecompressSync,
    });
  });

  it("the server's gzip (connect-es), with the body limit", async () => {
    await expectLinearCost({
      label: "compressionGzip.decompress with a 1 MiB limit, zeros",
      size: SIZE,
      input: gzippedZeros,
      step: (body) => outcome(() => compressionGzip.decompress(body, BODY_LIMIT)),
    });
  });
});
