import { choiceSetting, integerSetting, type SettingGroup, textSetting } from "./variables.js";

export const PORT = integerSetting({
  name: "PORT",
  fallback: 8080,
  min: 0,
  max: 65_535,
  meaning:
    "TCP port for every protocol (HTTP/1.1 and HTTP/2 cleartext on the same port). `0` picks a free one.",
});

export const HOST = textSetting({
  name: "HOST",
  fallback: "127.0.0.1",
  values: "an interface's address",
  meaning: "Interface to listen on; `0.0.0.0` for all.",
});

export const DATA_DIR = textSetting({
  name: "DATA_DIR",
  fallback: ".data",
  values: "a directory",
  meaning: "Directory for the embedded database and development mode's signing key and token.",
});

export const NODE_ENV = textSetting({
  name: "NODE_ENV",
  values: "`development`, `production`, or anything else",
  meaning:
    "Without a JWKS (`AUTH_JWKS_URL`, `AUTH_JWKS_FILE`), the server runs in development mode only " +
    "when this is unset or `development` (any case); any other value (`production`, `Production`, " +
    "`prod`, `staging`, `test`...) then stops the start. The image sets `production`.",
});

export const SHUTDOWN_GRACE_MS = integerSetting({
  name: "SHUTDOWN_GRACE_MS",
  fallback: 5_000,
  min: 0,
  max: 600_000,
  meaning:
    "On SIGTERM/SIGINT, `/readyz` and gRPC health turn NOT_SERVING at once; for this long the server " +
    "still accepts connections and serves (so a load balancer notices and stops sending), then refuses " +
    "new ones and drains. A second signal skips the rest of it.",
});

export const SHUTDOWN_TIMEOUT_MS = integerSetting({
  name: "SHUTDOWN_TIMEOUT_MS",
  fallback: 10_000,
  min: 0,
  max: 600_000,
  meaning:
    "After the grace period, how long requests in flight may take before their connections are cut " +
    "(each cut request is logged). The process then cancels the database statements still running, " +
    "closes the pool and exits 0: by `SHUTDOWN_GRACE_MS` + this + 1 s after the signal, whatever the database does.",
});

/** Where the server listens, where it keeps its files, and how it stops. */
export const serverSettings: SettingGroup = {
  title: "Server",
  settings: [PORT, HOST, DATA_DIR, NODE_ENV, SHUTDOWN_GRACE_MS, SHUTDOWN_TIMEOUT_MS],
};

export const MAX_REQUEST_BODY_BYTES = integerSetting({
  name: "MAX_REQUEST_BODY_BYTES",
  fallback: 1_048_576,
  min: 1024,
  max: 67_108_864,
  meaning:
    "Largest request body on every protocol (REST, Connect, gRPC, gRPC-Web), counted after " +
    "decompression and enforced while inflating: a larger one is refused with `resource_exhausted` " +
    "(REST: 413) before it is held in memory.",
});

export const REST_COMPRESS_MIN_BYTES = integerSetting({
  name: "REST_COMPRESS_MIN_BYTES",
  fallback: 1024,
  min: 0,
  max: 67_108_864,
  meaning:
    "REST answers at least this large are compressed (br, zstd or gzip) for a client whose " +
    "`Accept-Encoding` accepts one; `0` compresses every answer.",
});

export const RPC_IN_PROCESS_UNARY = choiceSetting({
  name: "RPC_IN_PROCESS_UNARY",
  choices: ["on", "off"],
  fallback: "on",
  meaning:
    "`off` serves every Connect, gRPC and gRPC-Web call by connect-es's handlers instead of calling " +
    "unary methods in-process (the same answers, but that a failed gRPC call is one Trailers-Only " +
    "HEADERS frame in-process, headers then trailers from connect-es, and that only the in-process " +
    "path gives a Connect GET's answer REST's caching headers: `ETag`, 304, `Cache-Control`; for " +
    "comparing the two).",
});

export const PAGE_TOKEN_SECRET = textSetting({
  name: "PAGE_TOKEN_SECRET",
  default: "(random per process)",
  values:
    "comma-separated secrets of 32 characters or more each (e.g. `openssl rand -base64 32`); one " +
    "containing `change`, `replace`, `example` or `placeholder` (any case) is taken for a placeholder and refused",
  meaning:
    "Secrets of the keys that encrypt the page tokens of every listing (ListProjects, ListFolders), " +
    "the current one first: tokens are " +
    "sealed with the first and read with any, so a secret can be replaced without invalidating the " +
    "tokens clients hold (see [Rotating `PAGE_TOKEN_SECRET`](operations.md#rotating-page_token_secret)). " +
    "Set the same list on every instance, or tokens only work on the process that issued them.",
});

/** What one request may be, how its answer is sent, and the keys of its page tokens. */
export const requestSettings: SettingGroup = {
  title: "Requests and answers",
  settings: [MAX_REQUEST_BODY_BYTES, REST_COMPRESS_MIN_BYTES, RPC_IN_PROCESS_UNARY, PAGE_TOKEN_SECRET],
};
