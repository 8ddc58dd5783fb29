import { createHash, randomUUID } from "node:crypto";
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextValues } from "@connectrpc/connect";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER } from "@folio/test-support/tokens";
import { describe, expect, it } from "vitest";
import {
  assertEveryMethodHasScope,
  type Caller,
  callerKey,
  createAuthInterceptor,
  requireCaller,
} from "../src/index.js";
import { createAccessTokenVerifier, InvalidTokenError, KeySetUnavailableError } from "../src/verify.js";

const method = {
  name: "CreateFolder",
  parent: { typeName: "folio.v1.FolderService" },
} as unknown as DescMethod;
const caller = { userId: randomUUID(), orgId: randomUUID(), scopes: new Set(["files:upload"]) };

/** Runs the interceptor once, as Connect would, and returns what the handler saw or the error. */
async function call(
  authorization: string | undefined,
  scope = "files:upload",
  granted = caller,
  service = method.parent,
) {
  const interceptor = createAuthInterceptor({
    publicServices: [{ typeName: "grpc.health.v1.Health" } as never],
    anyScopeServices: [{ typeName: "grpc.reflection.v1.ServerReflection" } as never],
    verify: async (token) => {
      if (token === "keys.down.value") {
        throw new KeySetUnavailableError("signing keys could not be fetched; retry in 3s", {
          retryAfterSeconds: 3,
        });
      }
      if (token !== "good.token.value") throw new InvalidTokenError("token signature is invalid");
      return granted;
    },
    requiredScope: () => scope,
  });
  const header = new Headers(authorization === undefined ? {} : { authorization });
  const req = { method, service, header, contextValues: createContextValues() };
  try {
    const seen = await interceptor(async (r) => r.contextValues.get(callerKey) as never)(req as never);
    return { caller: seen as unknown as Caller | undefined };
  } catch (error) {
    return { error: ConnectError.from(error) };
  }
}

describe("createAuthInterceptor", () => {
  it("puts the verified caller into the context, with the token's id and not the token", async () => {
    const seen = (await call("Bearer good.token.value")).caller;
    expect(seen).toEqual({ ...caller, tokenId: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(seen?.tokenId).toBe(createHash("sha256").update("good.token").digest("hex"));
    expect(JSON.stringify(seen)).not.toContain("good.token.value");
  });

  it("gives the same token the same id however the header spells the scheme", async () => {
    const ids = await Promise.all(
      ["Bearer good.token.value", "bearer   good.token.value"].map(
        async (h) => (await call(h)).caller?.tokenId,
      ),
    );
    expect(ids[0]).toBeDefined();
    expect(ids[1]).toBe(ids[0]);
  });

  it("lets calls of a public service through without a token, and without a caller", async () => {
    const result = await call(undefined, "files:upload", caller, {
      typeName: "grpc.health.v1.Health",
    } as never);
    expect(result).toEqual({ caller: undefined });
  });

  it("lets calls of an any-scope service through with a valid token, whatever its scopes, and only so", async () => {
    const reflection = { typeName: "grpc.reflection.v1.ServerReflection" } as never;
    const unscoped = { ...caller, scopes: new Set<string>() };
    expect(
      (await call("Bearer good.token.value", "files:upload", unscoped, reflection)).caller,
    ).toMatchObject(unscoped);
    expect((await call(undefined, "files:upload", caller, reflection)).error?.code).toBe(
      Code.Unauthenticated,
    );
    expect((await call("Bearer forged.token.value", "files:upload", caller, reflection)).error?.code).toBe(
      Code.Unauthenticated,
    );
  });

  it.each([["bearer good.token.value"], ["BEARER good.token.value"], ["Bearer   good.token.value"]])(
    "accepts %j (the scheme is case-insensitive, spaces may repeat)",
    async (header) => {
      expect((await call(header)).caller).toMatchObject(caller);
    },
  );

  it("challenges a request without credentials without an error attribute", async () => {
    const { error } = await call(undefined);
    expect(error?.code).toBe(Code.Unauthenticated);
    expect(error?.metadata.get("www-authenticate")).toBe('Bearer realm="folio"');
  });

  it.each([["Basic dXNlcjpwYXNz"], ["Bearer"], ["good.token.value"], ["Bearer a b"]])(
    "refuses the header %j as invalid_token",
    async (header) => {
      const { error } = await call(header);
      expect(error?.code).toBe(Code.Unauthenticated);
      expect(error?.metadata.get("www-authenticate")).toContain('error="invalid_token"');
    },
  );

  it("says why a token is refused", async () => {
    const { error } = await call("Bearer forged.token.value");
    expect(error?.rawMessage).toBe("token signature is invalid");
  });

  it("answers unavailable with Retry-After, and no challenge, while the signing keys cannot be loaded", async () => {
    const { error } = await call("Bearer keys.down.value");
    expect(error?.code).toBe(Code.Unavailable);
    expect(error?.metadata.get("retry-after")).toBe("3");
    expect(error?.metadata.get("www-authenticate")).toBeNull();
  });

  it("denies a token without the method's scope, naming the scope", async () => {
    const { error } = await call("Bearer good.token.value", "project:read");
    expect(error?.code).toBe(Code.PermissionDenied);
    expect(error?.metadata.get("www-authenticate")).toBe(
      'Bearer realm="folio", error="insufficient_scope", scope="project:read"',
    );
  });

  it("does not take a scope that merely contains the required one", async () => {
    const granted = { ...caller, scopes: new Set(["files:uploadx", "xfiles:upload"]) };
    const { error } = await call("Bearer good.token.value", "files:upload", granted);
    expect(error?.code).toBe(Code.PermissionDenied);
  });
});

describe("assertEveryMethodHasScope", () => {
  it("names the methods without a scope", () => {
    expect(() => assertEveryMethodHasScope([method], () => undefined)).toThrow(
      "methods without a required scope: folio.v1.FolderService.CreateFolder",
    );
    expect(() => assertEveryMethodHasScope([method], () => "files:upload")).not.toThrow();
  });
});

describe("requireCaller", () => {
  it("fails as internal (a wiring bug of the server), not as 401, when no auth ran before the handler", () => {
    const context = { values: createContextValues(), method } as never;
    let error: ConnectError | undefined;
    try {
      requireCaller(context);
    } catch (thrown) {
      error = ConnectError.from(thrown);
    }
    expect(error?.code).toBe(Code.Internal);
    expect(error?.rawMessage).toContain("folio.v1.FolderService/CreateFolder");
  });
});

describe("a token's id", () => {
  it("is the same for both ECDSA signatures of one token, (r, s) and (r, n - s), which both verify", async () => {
    const issuer = await createTestIssuer("ES256");
    const verify = await createAccessTokenVerifier({
      keys: { jwks: issuer.jwks },
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
    });
    const token = await issuer.sign({ sub: randomUUID(), org_id: randomUUID() });
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const bytes = Buffer.from(signature, "base64url");
    // P-256's group order: s and n - s are both valid for the same r.
    const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
    const s = BigInt(`0x${bytes.subarray(32).toString("hex")}`);
    const twin = Buffer.concat([
      bytes.subarray(0, 32),
      Buffer.from((n - s).toString(16).padStart(64, "0"), "hex"),
    ]);
    const twinToken = `${header}.${payload}.${twin.toString("base64url")}`;
    expect(twinToken).not.toBe(token);

    const interceptor = createAuthInterceptor({ verify, requiredScope: () => "files:upload" });
    const idOf = async (t: string) => {
      const req = {
        method,
        service: method.parent,
        header: new Headers({ authorization: `Bearer ${t}` }),
        contextValues: createContextValues(),
      };
      return (
        (await interceptor(async (r) => r.contextValues.get(callerKey) as never)(
          req as never,
        )) as unknown as Caller
      ).tokenId;
    };
    const id = await idOf(token);
    expect(await idOf(twinToken)).toBe(id);
  });
});
