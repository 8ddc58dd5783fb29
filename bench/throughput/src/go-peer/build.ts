// Builds the Go peer (grpc-go + grpc-gateway + pgx, bench/throughput/go) from Debian's packages
// alone, in GOPATH mode: no module proxy is reachable, and Debian installs the sources under
// /usr/share/gocode/src. Steps: the derived protos (derived-protos.ts) from Folio's descriptors,
// protoc with Debian's protoc-gen-go and protoc-gen-grpc-gateway, the Unicode tables
// (unicode-tables.ts), then `go build`. Everything goes to bench/throughput/.cache/go-peer.
//
//   node bench/throughput/src/go-peer/build.ts     # prints the binary's path

import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { onPath } from "../compare/tools.ts";
import { filesToCopy, GO_PACKAGE, printDerivedProto, sameFields } from "./derived-protos.ts";
import { unicodeTablesGo } from "./unicode-tables.ts";

/** The Debian packages of the Go stack, as one command. */
export const GO_INSTALL =
  "apt-get install -y --no-install-recommends golang-go protobuf-compiler golang-goprotobuf-dev golang-google-grpc-dev golang-google-genproto-dev golang-github-grpc-ecosystem-grpc-gateway-dev golang-grpc-gateway golang-github-jackc-pgx-v4-dev golang-gopkg-square-go-jose.v2-dev golang-golang-x-text-dev";

const GOCODE = "/usr/share/gocode";
const PROGRAMS = ["go", "protoc", "protoc-gen-go", "protoc-gen-grpc-gateway"];
/** Sources the peer imports, each from one of the packages above. */
const SOURCES = [
  "github.com/golang/protobuf/proto",
  "google.golang.org/grpc",
  "google.golang.org/genproto/googleapis/rpc/errdetails",
  "github.com/grpc-ecosystem/grpc-gateway/runtime",
  "github.com/jackc/pgx/v4/pgxpool",
  "gopkg.in/square/go-jose.v2/jwt",
  "golang.org/x/text/unicode/norm",
];
const GOOGLEAPIS = `${GOCODE}/src/github.com/grpc-ecosystem/grpc-gateway/third_party/googleapis`;

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const GO_SOURCES = here("../../go");
const PROTO_SOURCES = here("../../../../proto/folio/v1");
const OUT = here("../../.cache/go-peer");

/** Where the peer's binary is built. */
export const GO_PEER_BINARY = join(OUT, "folio-go-peer");

/** What is missing to build the Go peer, or undefined when nothing is. */
export function goPeerUnavailable(): string | undefined {
  const missing = [
    ...PROGRAMS.filter((program) => !onPath(program)),
    ...SOURCES.filter((source) => !existsSync(join(GOCODE, "src", source))).map((s) => `${GOCODE}/src/${s}`),
  ];
  return missing.length === 0 ? undefined : `missing ${missing.join(", ")}; install with: ${GO_INSTALL}`;
}

/** Builds the peer and returns the binary's path; throws with the failing step's output. */
export function buildGoPeer(): string {
  const unavailable = goPeerUnavailable();
  if (unavailable !== undefined) throw new Error(`the Go peer cannot be built: ${unavailable}`);
  const protos = join(OUT, "protos");
  const gopath = join(OUT, "gopath");
  const main = join(gopath, "src", "folio-go-peer");
  rmSync(protos, { recursive: true, force: true });
  rmSync(main, { recursive: true, force: true });
  mkdirSync(join(protos, "folio", "v1"), { recursive: true });
  mkdirSync(main, { recursive: true });

  const original = folioDescriptors();
  const files = filesToCopy(original);
  const registry = createFileRegistry(original);
  const methodOf = (service: string, method: string) => {
    const found = registry.getService(service)?.methods.find((m) => m.name === method);
    if (found === undefined) throw new Error(`no method ${service}.${method}`);
    return found;
  };
  const copied = new Set(files.map((file) => file.name));
  for (const file of files) writeFileSync(join(protos, file.name), printDerivedProto(file, copied, methodOf));

  const names = files.map((file) => file.name);
  const includes = ["-I", protos, "-I", GOOGLEAPIS, "-I", "/usr/include"];
  const descriptors = join(OUT, "derived.binpb");
  run("protoc", [...includes, `--descriptor_set_out=${descriptors}`, ...names]);
  sameFields(files, fromBinary(FileDescriptorSetSchema, readFileSync(descriptors)));
  // Debian's timestamp.proto names the APIv2 package, which golang/protobuf 1.3 does not use.
  const mappings = ["Mgoogle/protobuf/timestamp.proto=github.com/golang/protobuf/ptypes/timestamp"];
  run("protoc", [
    ...includes,
    `--go_out=plugins=grpc,${mappings.join(",")}:${join(gopath, "src")}`,
    `--grpc-gateway_out=logtostderr=true,${mappings.join(",")}:${join(gopath, "src")}`,
    ...names,
  ]);
  if (!existsSync(join(gopath, "src", GO_PACKAGE))) throw new Error(`protoc wrote no ${GO_PACKAGE}`);

  for (const name of readdirSync(GO_SOURCES)) {
    if (name.endsWith(".go")) copyFileSync(join(GO_SOURCES, name), join(main, name));
  }
  writeFileSync(join(main, "unicode_tables.go"), unicodeTablesGo());
  run("go", ["build", "-o", GO_PEER_BINARY, "folio-go-peer"], {
    GO111MODULE: "off",
    GOPATH: `${gopath}:${GOCODE}`,
    GOPROXY: "off",
    GOFLAGS: "",
    CGO_ENABLED: "0",
    GOCACHE: join(OUT, "gocache"),
  });
  return GO_PEER_BINARY;
}

/**
 * Folio's descriptors as `@folio/proto` builds them from proto/folio/v1/*.proto (with their
 * imports); refused when a source is newer than the build, so the copy is never of stale protos.
 */
function folioDescriptors() {
  const path = createRequire(import.meta.url).resolve("@folio/proto/folio.binpb");
  const built = statSync(path).mtimeMs;
  const stale = readdirSync(PROTO_SOURCES).filter(
    (name) => name.endsWith(".proto") && statSync(join(PROTO_SOURCES, name)).mtimeMs > built,
  );
  if (stale.length > 0) {
    throw new Error(
      `${stale.join(", ")} changed after ${path} was built: pnpm exec turbo run build --filter=@folio/proto`,
    );
  }
  return fromBinary(FileDescriptorSetSchema, readFileSync(path));
}

function run(command: string, args: readonly string[], env: Record<string, string> = {}): void {
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout ?? ""}${result.stderr ?? ""}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const unavailable = goPeerUnavailable();
  if (unavailable !== undefined) {
    console.error(unavailable);
    process.exit(2);
  }
  console.log(buildGoPeer());
}
