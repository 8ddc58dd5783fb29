import { createHmac, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { codeToHttpStatus, codeToString } from "@folio/googleapis";
import { FolderService, ProjectService } from "@folio/proto";
import { createTestIssuer, TEST_AUDIENCE, TEST_ISSUER, type TestIssuer } from "@folio/test-support/tokens";
import { base64url, type JSONWebKeySet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Protocol, startTestServer, type TestServer } from "./harness.js";

// The issuer's JWKS, served over real HTTP; tests rotate keys by changing it.
let jwks: JSONWebKeySet = { keys: [] };
let jwksServer: http.Server;
let issuer: TestIssuer;
let server: TestServer;

beforeAll(async () => {
  issuer = await createTestIssuer("RS256");
  jwks = issuer.jwks;
  jwksServer = http.createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(jwks));
  });
  await new Promise<void>((done) => jwksServer.listen(0, "127.0.0.1", done));
  const { port } = jwksServer.address() as AddressInfo;
  server = await startTestServer({
    AUTH_JWKS_FILE: "",
    AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
    AUTH_JWKS_COOLDOWN_SECONDS: "0",
  });
});
afterAll(async () => {
  await server?.close();
  jwksServer?.close();
});

const now = () => Math.floor(Date.now() / 1000);
const claims = () => ({
  iss: TEST_ISSUER,
  aud: TEST_AUDIENCE,
  sub: randomUUID(),
  org_id: randomUUID(),
  exp: now() + 60,
});
const unsigned = (header: object, payload: object) =>
  `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`;

/** What each case sends as the Authorization header. */
type Credentials = () => Promise<string | undefined>;
const bearer =
  (token: () => Promise<string>): Credentials =>
  async () =>
    `Bearer ${await token()}`;

interface Case {
  name: string;
  authorization: Credentials;
  /** Which operation is called (both need a different scope). */
  call?: "createFolder" | "listProjects";
  code: Code | "ok";
  /** Expected WWW-Authenticate challenge, or a pattern of it. */
  challenge?: string | RegExp;
  message?: string;
}

const cases: Case[] = [
  { name: "a valid token", authorization: bearer(() => issuer.sign()), code: "ok" },
  {
    name: "the scheme in lower case",
    authorization: async () => `bearer ${await issuer.sign()}`,
    code: "ok",
  },
  {
    name: "extra spaces after the scheme",
    authorization: async () => `Bearer    ${await issuer.sign()}`,
    code: "ok",
  },
  {
    name: "no Authorization header",
    authorization: async () => undefined,
    code: Code.Unauthenticated,
    challenge: 'Bearer realm="folio"',
    message: "missing bearer token",
  },
  {
    name: "the Basic scheme",
    authorization: async () => "Basic dXNlcjpwYXNz",
    code: Code.Unauthenticated,
    challenge: /^Bearer realm="folio", error="invalid_token"/,
  },
  {
    name: "a token without the Bearer scheme",
    authorization: () => issuer.sign(),
    code: Code.Unauthenticated,
    challenge: /error="invalid_token"/,
  },
  {
    name: "an expired token",
    authorization: bearer(() => issuer.sign({ exp: now() - 120 })),
    code: Code.Unauthenticated,
    challenge: /error="invalid_token"/,
    message: "token has expired",
  },
  {
    name: "a token not yet valid",
    authorization: bearer(() => issuer.sign({ nbf: now() + 600 })),
    code: Code.Unauthenticated,
    message: "token is not yet valid",
  },
  {
    name: "a token without exp",
    authorization: bearer(() => issuer.sign({}, {}, null)),
    code: Code.Unauthenticated,
    challenge: /error="invalid_token"/,
    message: 'token has no "exp" claim',
  },
  {
    name: "a token issued in the future",
    authorization: bearer(() => issuer.sign({ iat: now() + 600 })),
    code: Code.Unauthenticated,
    message: "token was issued in the future",
  },
  {
    name: "the wrong issuer",
    authorization: bearer(() => issuer.sign({ iss: "https://elsewhere.test" })),
    code: Code.Unauthenticated,
    message: "token has the wrong issuer",
  },
  {
    name: "the wrong audience",
    authorization: bearer(() => issuer.sign({ aud: "another-api" })),
    code: Code.Unauthenticated,
    message: "token has the wrong audience",
  },
  {
    name: "alg none",
    authorization: async () => `Bearer ${unsigned({ alg: "none", typ: "at+jwt" }, claims())}.`,
    code: Code.Unauthenticated,
    message: "token signature algorithm is not allowed",
  },
  {
    name: "HS256 signed with the public key",
    authorization: async () => {
      const input = unsigned({ alg: "HS256", kid: issuer.kid, typ: "at+jwt" }, claims());
      const key = JSON.stringify(issuer.jwks.keys[0]);
      return `Bearer ${input}.${createHmac("sha256", key).update(input).digest("base64url")}`;
    },
    code: Code.Unauthenticated,
    message: "token signature algorithm is not allowed",
  },
  {
    name: "a tampered payload",
    authorization: async () => {
      const [header, , signature] = (await issuer.sign()).split(".");
      return `Bearer ${header}.${base64url.encode(JSON.stringify(claims()))}.${signature}`;
    },
    code: Code.Unauthenticated,
    message: "token signature is invalid",
  },
  {
    name: "no sub",
    authorization: bearer(() => issuer.sign({ sub: undefined })),
    code: Code.Unauthenticated,
    message: 'token claim "sub" must be a UUID',
  },
  {
    name: "no org_id",
    authorization: bearer(() => issuer.sign({ org_id: undefined })),
    code: Code.Unauthenticated,
    message: 'token claim "org_id" must be a UUID',
  },
  {
    name: "a non-UUID org_id",
    authorization: bearer(() => issuer.sign({ org_id: "acme" })),
    code: Code.Unauthenticated,
    message: 'token claim "org_id" must be a UUID',
  },
  {
    name: "no scope at all",
    authorization: bearer(() => issuer.sign({ scope: "" })),
    code: Code.PermissionDenied,
    challenge: 'Bearer realm="folio", error="insufficient_scope", scope="files:upload"',
  },
  {
    name: "the scope only as a substring (files:uploadx)",
    authorization: bearer(() => issuer.sign({ scope: "files:uploadx project:read" })),
    code: Code.PermissionDenied,
    challenge: /error="insufficient_scope", scope="files:upload"/,
  },
  {
    name: "only project:read, calling CreateFolder",
    authorization: bearer(() => issuer.sign({ scope: "project:read" })),
    call: "createFolder",
    code: Code.PermissionDenied,
    message: 'token lacks the scope "files:upload"',
  },
  {
    name: "only files:upload, calling ListProjects",
    authorization: bearer(() => issuer.sign({ scope: "files:upload" })),
    call: "listProjects",
    code: Code.PermissionDenied,
    challenge: 'Bearer realm="folio", error="insufficient_scope", scope="project:read"',
  },
  {
    name: "scopes as an scp array",
    authorization: bearer(() => issuer.sign({ scope: undefined, scp: ["files:upload"] })),
    code: "ok",
  },
];

async function invoke(protocol: Protocol, call: "createFolder" | "listProjects", authorization?: string) {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const transport = server.transport(protocol);
  try {
    if (call === "createFolder") {
      await createClient(FolderService, transport).createFolder({ name: `f-${randomUUID()}` }, { headers });
    } else {
      await createClient(ProjectService, transport).listProjects({}, { headers });
    }
    return undefined;
  } catch (error) {
    return ConnectError.from(error);
  }
}

describe.each(["connect", "grpc", "grpc-web"] as const)("bearer authentication over %s", (protocol) => {
  it.each(cases)("$name", async ({ authorization, call = "createFolder", code, challenge, message }) => {
    const error = await invoke(protocol, call, await authorization());
    if (code === "ok") {
      expect(error).toBeUndefined();
      return;
    }
    expect(error?.code).toBe(code);
    if (message !== undefined) expect(error?.rawMessage).toBe(message);
    if (challenge !== undefined) {
      const header = error?.metadata.get("www-authenticate") ?? "";
      if (typeof challenge === "string") expect(header).toBe(challenge);
      else expect(header).toMatch(challenge);
    }
    // The message explains; it never echoes the credentials.
    const sent = (await authorization())?.split(" ").pop() ?? "";
    if (sent.length > 20) expect(error?.rawMessage).not.toContain(sent);
  });
});

describe("key rotation", () => {
  it("accepts a token signed by a key the issuer publishes later, without a restart", async () => {
    const rotated = await createTestIssuer("ES256");
    const token = await rotated.sign();
    const before = await invoke("connect", "listProjects", `Bearer ${token}`);
    expect(before?.code).toBe(Code.Unauthenticated);
    expect(before?.rawMessage).toBe("token is signed with an unknown key");

    jwks = { keys: [...issuer.jwks.keys, ...rotated.jwks.keys] };
    expect(await invoke("connect", "listProjects", `Bearer ${token}`)).toBeUndefined();
    // The old key still works while the issuer publishes it.
    expect(await invoke("connect", "listProjects", `Bearer ${await issuer.sign()}`)).toBeUndefined();
  });
});

describe("where the token may come from", () => {
  it("never takes a token from the query string", async () => {
    const token = await issuer.sign();
    for (const parameter of ["access_token", "token"]) {
      const response = await fetch(
        `${server.baseUrl}/folio.v1.ProjectService/ListProjects?${parameter}=${encodeURIComponent(token)}`,
        { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
      );
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="folio"');
    }
  });

  it("never takes a token from a REST query string: without the header it is 401, with it the parameter is 400", async () => {
    const token = await issuer.sign();
    const url = `${server.baseUrl}/api/v1/projects?access_token=${encodeURIComponent(token)}`;
    // Authentication comes first and reads the Authorization header alone.
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(JSON.stringify(await anonymous.json())).not.toContain(token);
    // Authenticated, the parameter is one the method does not have.
    const response = await fetch(url, { headers: { authorization: `Bearer ${await issuer.sign()}` } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string } };
    expect(body.error.code).toBe("invalid_argument");
    expect(JSON.stringify(body)).toContain("access_token");
    expect(JSON.stringify(body)).not.toContain(token);
  });
});

describe("bearer authentication over REST", () => {
  it.each(cases)("$name", async ({ authorization, call = "createFolder", code, challenge, message }) => {
    const header = await authorization();
    const headers: Record<string, string> = header === undefined ? {} : { authorization: header };
    const response =
      call === "createFolder"
        ? await fetch(`${server.baseUrl}/api/v1/folders`, {
            method: "POST",
            headers: { ...headers, "content-type": "application/json" },
            body: JSON.stringify({ name: `f-${randomUUID()}` }),
          })
        : await fetch(`${server.baseUrl}/api/v1/projects`, { headers });
    const body = (await response.json()) as { error?: { code: string; message: string; requestId: string } };
    if (code === "ok") {
      expect(response.status).toBe(call === "createFolder" ? 201 : 200);
      return;
    }
    expect(response.status).toBe(codeToHttpStatus(code));
    expect(body.error?.code).toBe(codeToString(code));
    expect(body.error?.requestId).toBe(response.headers.get("x-request-id"));
    if (message !== undefined) expect(body.error?.message).toBe(message);
    const sent = header?.split(" ").pop() ?? "";
    if (sent.length > 20) expect(JSON.stringify(body)).not.toContain(sent);
    if (challenge !== undefined) {
      const value = response.headers.get("www-authenticate") ?? "";
      if (typeof challenge === "string") expect(value).toBe(challenge);
      else expect(value).toMatch(challenge);
    }
  });
});
