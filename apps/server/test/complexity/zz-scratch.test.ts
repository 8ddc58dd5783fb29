import { fromJsonString } from "@bufbuild/protobuf";
import { CreateFolderRequestSchema } from "@folio/proto";
import { it } from "vitest";
import { JSON_BODIES } from "./json-bodies.js";
import { measureGrowth } from "./linear-cost.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
it("sizes", async () => {
  const fams = JSON_BODIES.filter((f) =>
    /long name|lone-surrogate|many unknown keys$|deeply nested objects under/.test(f.label),
  );
  for (const size of [1 << 14, 1 << 16, 1 << 20]) {
    for (const f of fams) {
      const out: string[] = [];
      for (let k = 0; k < 3; k++) {
        const g = await measureGrowth({
          size,
          runs: 5,
          input: (n) => enc.encode(f.build(n)),
          step: (b) => {
            try {
              return fromJsonString(CreateFolderRequestSchema, dec.decode(b));
            } catch (e) {
              return e;
            }
          },
        });
        out.push(g.ratio.toFixed(2));
      }
      console.log(size, f.label, out.join(" "));
    }
  }
}, 1200000);
