// The server process's entry point (dist/main.js): turns on Node's compile cache, then loads the
// server, bundled in dist/server.js (src/server.ts and everything it imports; see scripts/bundle.ts).
// With the cache, a restart of the same build reuses V8's compiled code of the bundle instead of
// compiling its 7 MB again. It lives in `os.tmpdir()` unless NODE_COMPILE_CACHE names a directory;
// where it cannot be written, the server starts as it would without it.
import { enableCompileCache } from "node:module";

enableCompileCache();
// A build output next to this file's own (dist/), not a module of src/: named in a variable so
// that type checking does not look for it.
const server = "./server.js";
await import(server);
