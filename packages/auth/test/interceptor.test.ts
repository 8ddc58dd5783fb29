import { randomUUID } from "node:crypto";
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextValues } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { assertEveryMethodHasScope, type Caller, callerKey, createAuthInterceptor } from "../src/index.js";
import { InvalidTokenError } from "../src/verify.js";

const method = {
  name: "CreateFolder",
  parent: { typeName: "folio.v1.FolderService" },
} as unknown as DescMethod;
const caller: Caller = { userId: randomUUID(), orgId: randomUUID(), scopes: new Set(["files:upload"]) };

/** Runs the interceptor once, as Connect would, and returns what the handler saw or the error. */
async function call(authorization: string | undefined, scope = "files:upload", granted = caller) {
  const interceptor = createAuthInterceptor({
    verify: async (token) => {
      if (token !== "good.token.value") throw new InvalidTokenError("token signature is invalid");
      return granted;
    },
    requiredScope: () => scope,
  });
  const header = new Headers(authorization === undefined ? {} : { authorization });
  const req = { method, header, contextValues: createContextValues() };
  try {
    const seen = await interceptor(async (r) => r.contextValues.get(callerKey) as never)(req as never);
    return { caller: seen as unknown as Caller | undefined };
  } catch (error) {
    return { error: ConnectError.from(error) };
  }
}

describe("createAuthInterceptor", () => {
  it("puts the verified caller into the context", async () => {
    expect((await call("Bearer good.token.value")).caller).toBe(caller);
  });

  it.each([["bearer good.token.value"], ["BEARER good.token.value"], ["Bearer   good.token.value"]])(
    "accepts %j (the scheme is case-insensitive, spaces may repeat)",
    async (header) => {
      expect((await call(header)).caller).toBe(caller);
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
