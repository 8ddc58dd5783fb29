import { createHmac, randomUUID } from "node:crypto";
import {
  TEST_AUDIENCE as AUDIENCE,
  createTestIssuer,
  TEST_ISSUER as ISSUER,
  type TestIssuer,
} from "@folio/test-support/tokens";
import { base64url } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { type AccessTokenVerifier, createAccessTokenVerifier, InvalidTokenError } from "../src/index.js";

let issuer: TestIssuer;
let verify: AccessTokenVerifier;

beforeAll(async () => {
  issuer = await createTestIssuer();
  verify = await createAccessTokenVerifier({
    keys: { jwks: issuer.jwks },
    issuer: ISSUER,
    audience: AUDIENCE,
    clockToleranceSeconds: 5,
  });
});

async function refusal(token: string): Promise<string> {
  const error = await verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return (error as Error).message;
}

const now = () => Math.floor(Date.now() / 1000);

describe("createAccessTokenVerifier", () => {
  it("returns the caller of a valid token", async () => {
    const userId = randomUUID();
    const orgId = randomUUID();
    const caller = await verify(await issuer.sign({ sub: userId, org_id: orgId }));
    expect(caller).toEqual({ userId, orgId, scopes: new Set(["files:upload", "project:read"]) });
  });

  it("reads scopes from an scp array too", async () => {
    const caller = await verify(await issuer.sign({ scope: undefined, scp: ["project:read"] }));
    expect([...caller.scopes]).toEqual(["project:read"]);
  });

  it("accepts an iat in the future within the clock tolerance", async () => {
    await expect(verify(await issuer.sign({ iat: now() + 3 }))).resolves.toBeDefined();
  });

  it("accepts typ JWT as well as at+jwt", async () => {
    await expect(verify(await issuer.sign({}, { typ: "JWT" }))).resolves.toBeDefined();
  });

  it.each([
    ["expired", () => issuer.sign({ exp: now() - 60 }), "token has expired"],
    ["not yet valid", () => issuer.sign({ nbf: now() + 600 }), "token is not yet valid"],
    ["no exp (RFC 9068, section 2.2)", () => issuer.sign({}, {}, null), 'token has no "exp" claim'],
    ["an iat in the future", () => issuer.sign({ iat: now() + 600 }), "token was issued in the future"],
    ["wrong issuer", () => issuer.sign({ iss: "https://evil.test" }), "token has the wrong issuer"],
    ["wrong audience", () => issuer.sign({ aud: "other-api" }), "token has the wrong audience"],
    ["unknown kid", () => issuer.sign({}, { kid: "nope" }), "token is signed with an unknown key"],
    ["a non-UUID sub", () => issuer.sign({ sub: "alice" }), 'token claim "sub" must be a UUID'],
    ["a missing org_id", () => issuer.sign({ org_id: undefined }), 'token claim "org_id" must be a UUID'],
    [
      "an ID token typ",
      () => issuer.sign({}, { typ: "id_token+jwt" }),
      'token type "id_token+jwt" is not an access token',
    ],
  ])("refuses a token with %s", async (_case, token, message) => {
    expect(await refusal(await token())).toBe(message);
  });

  it("refuses alg none", async () => {
    const header = base64url.encode(JSON.stringify({ alg: "none", typ: "at+jwt" }));
    const payload = base64url.encode(
      JSON.stringify({
        iss: ISSUER,
        aud: AUDIENCE,
        sub: randomUUID(),
        org_id: randomUUID(),
        exp: now() + 60,
      }),
    );
    expect(await refusal(`${header}.${payload}.`)).toBe("token signature algorithm is not allowed");
  });

  it("refuses HS256 signed with the public key as the secret", async () => {
    const header = base64url.encode(JSON.stringify({ alg: "HS256", kid: issuer.kid, typ: "at+jwt" }));
    const payload = base64url.encode(
      JSON.stringify({
        iss: ISSUER,
        aud: AUDIENCE,
        sub: randomUUID(),
        org_id: randomUUID(),
        exp: now() + 60,
      }),
    );
    const signature = createHmac("sha256", JSON.stringify(issuer.jwks.keys[0]))
      .update(`${header}.${payload}`)
      .digest("base64url");
    expect(await refusal(`${header}.${payload}.${signature}`)).toBe(
      "token signature algorithm is not allowed",
    );
  });

  it("refuses a tampered payload", async () => {
    const [header, , signature] = (await issuer.sign()).split(".");
    const forged = base64url.encode(
      JSON.stringify({
        iss: ISSUER,
        aud: AUDIENCE,
        sub: randomUUID(),
        org_id: randomUUID(),
        exp: now() + 60,
      }),
    );
    expect(await refusal(`${header}.${forged}.${signature}`)).toBe("token signature is invalid");
  });

  it("refuses garbage without echoing it", async () => {
    const message = await refusal("not-a-jwt");
    expect(message).toBe("token is malformed (RFC 7515: three parts of unpadded base64url)");
    expect(message).not.toContain("not-a-jwt");
  });

  it("refuses every other spelling of a valid token: padding or unused bits set", async () => {
    const token = await issuer.sign();
    await expect(verify(token)).resolves.toBeDefined();
    const [header, payload, signature] = token.split(".") as [string, string, string];
    // An ES256 signature is 64 bytes: 86 characters, the last carrying 4 unused bits.
    expect(signature.length % 4).toBe(2);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(signature.at(-1) as string);
    const respellings = [
      `${signature}==`,
      `${signature}=`,
      // The same bytes, with the unused low bits of the last character set in each of 15 ways.
      ...Array.from({ length: 15 }, (_, bits) => `${signature.slice(0, -1)}${alphabet[last + bits + 1]}`),
    ];
    for (const spelling of respellings) {
      expect(Buffer.from(spelling, "base64url").equals(Buffer.from(signature, "base64url"))).toBe(true);
      expect(await refusal(`${header}.${payload}.${spelling}`), spelling).toBe(
        "token is malformed (RFC 7515: three parts of unpadded base64url)",
      );
    }
  });

  it("refuses to be configured with HMAC algorithms", async () => {
    await expect(
      createAccessTokenVerifier({
        keys: { jwks: issuer.jwks },
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ["HS256"],
      }),
    ).rejects.toThrow(/asymmetric/);
  });
});
