// Prints the functions that allocate most in a profile allocation-sampler.ts wrote: each
// function's own sampled bytes (what it allocated itself, not its callees'), as a share of the
// whole, and per request when given the number of requests the server answered:
//
//   node bench/throughput/src/allocation-sites.ts allocation-main-1234.heapprofile [--requests N] [--top 30]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { requests: { type: "string" }, top: { type: "string", default: "30" } },
});
const file = positionals[0];
if (file === undefined) {
  console.error("usage: allocation-sites.ts <file.heapprofile> [--requests N] [--top 30]");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as { head: ProfileNode };

// Self bytes by function, keyed by name and place (the same function reached by many paths is one row).
const bySite = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode) => {
  if (node.selfSize > 0) {
    const { functionName, url, lineNumber } = node.callFrame;
    const place = url === "" ? "(native)" : `${shorten(url)}:${lineNumber + 1}`;
    const key = `${functionName || "(anonymous)"} ${place}`;
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) walk(child);
};
walk(profile.head);

const requests = values.requests === undefined ? undefined : Number(values.requests);
console.log(
  `${(total / 1048576).toFixed(1)} MiB sampled${requests === undefined ? "" : `, ${(total / requests / 1024).toFixed(1)} KiB per request over ${requests}`}`,
);
const rows = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
for (const [site, bytes] of rows) {
  const share = `${((100 * bytes) / total).toFixed(1)}%`.padStart(6);
  const perRequest = requests === undefined ? "" : `${(bytes / requests).toFixed(0).padStart(7)} B/req  `;
  console.log(`${share}  ${perRequest}${site}`);
}

/** A file URL as its path below node_modules or the workspace, for a readable row. */
function shorten(url: string): string {
  const path = url.replace(/^file:\/\//, "");
  const inModules = path.lastIndexOf("/node_modules/");
  if (inModules >= 0) return path.slice(inModules + 14);
  const inWorkspace = path.search(/\/(apps|packages|bench|proto|tooling)\//);
  return inWorkspace >= 0 ? path.slice(inWorkspace + 1) : path;
}
