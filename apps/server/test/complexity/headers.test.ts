// Every request header the server parses costs time linear in its length: the Authorization header
// (the interceptor's Bearer pattern, then the token's spelling and its verification), X-Request-Id
// (echoed when acceptable), Accept-Encoding, Content-Type, If-None-Match, and the RPC protocols'
// coding and deadline headers. The Idempotency-Key rule is measured with the rules'
// (create-folder-rules.test.ts, rule-patterns.test.ts).
import type { UnaryRequest } from "@connectrpc/connect";
import { createContextValues } from "@connectrpc/connect";
import {
  type AccessTokenVerifier,
  createAccessTokenVerifier,
  createAuthInterceptor,
  InvalidTokenError,
} from "@folio/auth";
import { negotiateContentCoding, supportedContentCodings } from "@folio/http-transcoder";
import { FolderService } from "@folio/proto";
import { connectRequestOptions, type NodeRequest, unaryWireOf } from "@folio/rpc-protocols";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";
import type { JWTPayload } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { requestIdFor } from "../../src/observe/request-id.js";
import type { InputFamily } from "./costliest-input.js";
import { repeatTo } from "./hostile-names.js";
import { expectLinearCost } from "./linear-cost.js";
import { isCanonicalCompactJws, isJsonContentType, matchesIfNoneMatch } from "./package-internals.js";

/**
 * 32 Ki characters: 2N is HTTP/2's default limit of a request's headers (64 KiB; HTTP/1.1's is
 * 16 KiB), the most a client can send (see linear-cost.ts on N).
 */
const SIZE = 1 << 15;

/**
 * Base64url of about `size` characters, a multiple of four: a part of any other length would be
 * refused for its length alone (one of 4n + 1 characters holds no whole byte), without being read.
 */
const fourfold = (size: number) => repeatTo("aZ0_", size);

/** Runs `step`, a refusal included: a refused request is an outcome, not a failure of the test. */
async function outcome(step: () => unknown): Promise<unknown> {
  try {
    return await step();
  } catch (error) {
    return error;
  }
}

/** One test a family, each measuring `step` on the family's values, at N = `size`. */
function eachFamily<I>(
  name: string,
  families: readonly InputFamily<I>[],
  step: (input: I) => unknown,
  size = SIZE,
): void {
  it.each(families.map((family) => [family.label, family] as const))("%s", async (label, family) => {
    await expectLinearCost({ label: `${name}, ${label}`, size, input: family.build, step });
  });
}

describe("the Authorization header is matched against the Bearer pattern in time linear in its length", () => {
  // A verifier that refuses at once: what is measured is the interceptor's reading of the header.
  const interceptor = createAuthInterceptor({
    verify: async () => {
      throw new InvalidTokenError("refused");
    },
    requiredScope: () => "files:upload",
  });
  const call = interceptor(async () => {
    throw new Error("the interceptor let a call through");
  });
  const request = (authorization: string) =>
    ({
      service: FolderService,
      method: FolderService.method.createFolder,
      header: new Headers({ authorization }),
      contextValues: createContextValues(),
    }) as unknown as UnaryRequest;
  const families: InputFamily<string>[] = [
    { label: "spaces after the scheme", build: (size) => `Bearer ${repeatTo(" ", size)}a` },
    { label: "spaces after the scheme, then no token", build: (size) => `Bearer ${repeatTo(" ", size)}` },
    {
      label: "padding, spaces and a bad character",
      build: (size) => `Bearer a${repeatTo("=", size >> 1)}${repeatTo(" ", size >> 1)}!`,
    },
    { label: "padding only", build: (size) => `Bearer ${repeatTo("=", size)}` },
    {
      label: "a long token, then a bad character",
      build: (size) => `Bearer ${repeatTo("aZ9-._~+/", size)} !`,
    },
    { label: "a long token and padding, repeated", build: (size) => `Bearer ${repeatTo("a=", size)}` },
    { label: "a long token (verified)", build: (size) => `Bearer ${repeatTo("a", size)}` },
    { label: "another scheme", build: (size) => `Basic ${repeatTo("a", size)}` },
  ];
  it.each(families.map((family) => [family.label, family] as const))("%s", async (label, family) => {
    await expectLinearCost({
      label: `Authorization, ${label}`,
      size: SIZE,
      input: (size) => request(family.build(size)),
      step: (req) => outcome(() => call(req)),
    });
  });
});

describe("a bearer token's spelling is checked in time linear in its length", () => {
  eachFamily(
    "isCanonicalCompactJws",
    [
      // Parts of a multiple of four characters, so that every character is read (see fourfold).
      { label: "three long parts", build: (size) => [0, 1, 2].map(() => fourfold(size / 3)).join(".") },
      { label: "a long token without dots", build: (size) => repeatTo("a", size) },
      { label: "dots", build: (size) => repeatTo(".", size) },
      {
        label: "two long parts, then padding",
        build: (size) => `${fourfold(size >> 1)}.${fourfold(size >> 1)}.c=`,
      },
    ],
    isCanonicalCompactJws,
    // 16 Ki characters, HTTP/1.1's limit: a token without dots is one indexOf, which reads a core's
    // first-level cache (48 KiB here) twice as fast as the next, so at 32 and 64 Ki it measured 2.8
    // to 2.9, the cache and not the check.
    1 << 14,
  );
});

describe("a bearer token is verified in time linear in its length", () => {
  let issuer: TestIssuer;
  let verify: AccessTokenVerifier;
  beforeAll(async () => {
    issuer = await createTestIssuer();
    // The server's verifier, with its cache of verified tokens (refused tokens are not cached).
    verify = await createAccessTokenVerifier({
      keys: { jwks: issuer.jwks },
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
    });
  });
  /** The issuer's token with `claims` and `header`, its signature altered when `forge`. */
  const token = async (claims: JWTPayload, header: Record<string, unknown>, forge: boolean) => {
    const signed = await issuer.sign(claims, header);
    if (!forge) return signed;
    const cut = signed.lastIndexOf(".") + 1;
    return `${signed.slice(0, cut)}${signed[cut] === "A" ? "B" : "A"}${signed.slice(cut + 1)}`;
  };
  const padding = (size: number) => repeatTo("a", size);
  const tokens: (InputFamily<Promise<string>> & { accepted: boolean })[] = [
    {
      label: "a long payload, the signature altered",
      accepted: false,
      build: (size) => token({ padding: padding(size) }, {}, true),
    },
    {
      label: "a long header, the signature altered",
      accepted: false,
      build: (size) => token({}, { padding: padding(size) }, true),
    },
    {
      label: "a long payload, signed (verified once, then from the cache)",
      accepted: true,
      build: (size) => token({ padding: padding(size) }, {}, false),
    },
    {
      label: "three long parts that are not JSON",
      accepted: false,
      build: async (size) => [0, 1, 2].map(() => fourfold(size / 3)).join("."),
    },
  ];
  it.each(tokens.map((family) => [family.label, family] as const))("%s", async (label, family) => {
    // Each token takes the path it is named for: refused, or accepted.
    const result = await outcome(async () => verify(await family.build(1024)));
    expect(result instanceof InvalidTokenError).toBe(!family.accepted);
    await expectLinearCost({
      label: `token verification, ${label}`,
      size: SIZE,
      input: family.build,
      step: (jws) => outcome(() => verify(jws)),
    });
  });
});

describe("X-Request-Id is checked in time linear in its length", () => {
  eachFamily(
    "requestIdFor",
    [
      { label: "token characters", build: (size) => repeatTo("a.-_:", size) },
      {
        label: "128 token characters, then others",
        build: (size) => `${repeatTo("a", 128)}${repeatTo(" ", size)}`,
      },
      { label: "spaces", build: (size) => repeatTo(" ", size) },
    ],
    requestIdFor,
  );
});

describe("Accept-Encoding is negotiated in time linear in its length", () => {
  eachFamily(
    "negotiateContentCoding",
    [
      { label: "codings with weights", build: (size) => repeatTo("gzip;q=0.5, br;q=0.1, ", size) },
      { label: "unknown codings", build: (size) => repeatTo("x, ", size) },
      { label: "commas", build: (size) => repeatTo(",", size) },
      { label: "semicolons", build: (size) => `gzip${repeatTo(";", size)}` },
      { label: "a long weight", build: (size) => `gzip;q=0.${repeatTo("1", size)}` },
      { label: "white space", build: (size) => `gzip${repeatTo(" ", size)}` },
    ],
    (accept: string) => negotiateContentCoding(accept, supportedContentCodings),
  );
});

describe("Content-Type is checked in time linear in its length", () => {
  eachFamily(
    "isJsonContentType",
    [
      {
        label: "repeated charset parameters",
        build: (size) => `application/json${repeatTo("; charset=utf-8", size)}`,
      },
      {
        label: "a quoted charset of quotes",
        build: (size) => `application/json; charset="${repeatTo('"', size)}`,
      },
      { label: "white space", build: (size) => `application/json${repeatTo(" ", size)}` },
      { label: "a long type", build: (size) => repeatTo("a", size) },
    ],
    isJsonContentType,
  );
});

describe("If-None-Match is compared in time linear in its length", () => {
  eachFamily(
    "matchesIfNoneMatch",
    [
      { label: "many tags", build: (size) => repeatTo('"abc", ', size) },
      { label: "weak prefixes", build: (size) => repeatTo("W/", size) },
      { label: "white space", build: (size) => repeatTo(" ", size) },
    ],
    (header: string) => matchesIfNoneMatch(header, '"etag"'),
  );
});

describe("the RPC protocols' content type, codings and deadline are read in time linear in their length", () => {
  const accepted = connectRequestOptions(1 << 20).acceptCompression;
  /** A request of each protocol whose header `name` is `value`, the others as a client sends them. */
  const connect = (headers: Record<string, string>) =>
    ({
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
    }) as unknown as NodeRequest;
  const grpc = (headers: Record<string, string>) =>
    ({
      method: "POST",
      stream: {},
      headers: { "content-type": "application/grpc", ...headers },
    }) as unknown as NodeRequest;
  eachFamily(
    "unaryWireOf",
    [
      {
        label: "Connect, a long Accept-Encoding",
        build: (size) => connect({ "accept-encoding": repeatTo("gzip,", size) }),
      },
      {
        label: "Connect, a long Content-Encoding",
        build: (size) => connect({ "content-encoding": repeatTo("g", size) }),
      },
      {
        label: "Connect, a long Connect-Timeout-Ms",
        build: (size) => connect({ "connect-timeout-ms": repeatTo("1", size) }),
      },
      {
        label: "Connect, a long Content-Type",
        build: (size) => connect({ "content-type": `application/json${repeatTo(" ", size)}` }),
      },
      {
        label: "gRPC, a long grpc-accept-encoding",
        build: (size) => grpc({ "grpc-accept-encoding": repeatTo("gzip,", size) }),
      },
      {
        label: "gRPC, a long grpc-timeout",
        build: (size) => grpc({ "grpc-timeout": `${repeatTo("1", size)}S` }),
      },
    ],
    (req: NodeRequest) => unaryWireOf(req, accepted),
  );
});
