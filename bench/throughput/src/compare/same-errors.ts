import { equals, fromBinary } from "@bufbuild/protobuf";
import { ErrorInfoSchema, StatusSchema } from "@folio/googleapis";
import { type Contestant, GRPC_CONTESTANTS, REST_CONTESTANTS } from "./contestants.ts";
import { grpcUnary } from "./grpc-unary.ts";
import { createFolderRequest } from "./protobuf.ts";

const CREATE = "/folio.v1.FolderService/CreateFolder";

/**
 * The servers refuse the same bad CreateFolder requests the same way, for each protocol with two or
 * more contestants: an empty name (invalid_argument with a google.rpc.BadRequest) and the name a
 * folder of the preflight holds, upper-cased (already_exists with a google.rpc.ErrorInfo naming
 * that folder). gRPC: the same status, message and details; REST: the same status and envelope
 * but for the request id. Returns what was checked; throws on the first difference.
 */
export async function sameCreateErrors(
  contestants: readonly Contestant[],
  urlOf: (contestant: Contestant) => string,
  auth: Readonly<Record<string, string>>,
  prefix: string,
): Promise<string[]> {
  const notes: string[] = [];
  const grpc = contestants.filter((c) => GRPC_CONTESTANTS.includes(c));
  if (grpc.length > 1) {
    await sameGrpcErrors(grpc.map(urlOf), auth, `${prefix}-preflight-${grpc[0]}`);
    notes.push(
      `create: ${grpc.join(", ")} answer an empty name and a name taken with the same status, message and details`,
    );
  }
  const rest = contestants.filter((c) => REST_CONTESTANTS.includes(c));
  if (rest.length > 1) {
    await sameRestErrors(rest.map(urlOf), auth, `${prefix}-preflight-${rest[0]}`);
    notes.push(
      `create: ${rest.join(", ")} answer an empty name and a name taken with the same status and error envelope`,
    );
  }
  return notes;
}

async function sameGrpcErrors(
  urls: readonly string[],
  auth: Readonly<Record<string, string>>,
  takenName: string,
): Promise<void> {
  const answers = async (request: Uint8Array) =>
    Promise.all(
      urls.map(async (url) => {
        const reply = await grpcUnary(url, CREATE, auth, request);
        const details =
          reply.statusDetails === undefined ? undefined : fromBinary(StatusSchema, reply.statusDetails);
        return { status: reply.grpcStatus, message: reply.grpcMessage, details };
      }),
    );
  for (const [what, request, code] of [
    ["an empty name", createFolderRequest(" "), "3"],
    ["a name taken", createFolderRequest(takenName.toUpperCase()), "6"],
  ] as const) {
    const [first, ...others] = await answers(request);
    expect(first?.status === code && first.details !== undefined, `${what}: ${JSON.stringify(first)}`);
    for (const other of others) {
      expect(
        other.status === first.status &&
          other.message === first.message &&
          other.details !== undefined &&
          equals(StatusSchema, other.details, first.details),
        `${what}: ${JSON.stringify([first, other])}`,
      );
    }
    if (code === "6") {
      const info = first.details.details[0];
      const reason = info === undefined ? undefined : fromBinary(ErrorInfoSchema, info.value).reason;
      expect(reason === "FOLDER_NAME_TAKEN", `${what}: reason ${reason}`);
    }
  }
}

async function sameRestErrors(
  urls: readonly string[],
  auth: Readonly<Record<string, string>>,
  takenName: string,
): Promise<void> {
  const answers = async (name: string) =>
    Promise.all(
      urls.map(async (url) => {
        const response = await fetch(`${url}/api/v1/folders`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ name }),
        });
        const body = (await response.json()) as { error?: { requestId?: string } };
        expect(
          body.error?.requestId === response.headers.get("x-request-id"),
          `${url}: the envelope's requestId is not the X-Request-Id header`,
        );
        return JSON.stringify({ status: response.status, ...body, error: { ...body.error, requestId: "" } });
      }),
    );
  for (const [what, name, status] of [
    ["an empty name", " ", 400],
    ["a name taken", takenName.toUpperCase(), 409],
  ] as const) {
    const [first, ...others] = await answers(name);
    expect(first?.startsWith(`{"status":${status},`) === true, `${what}: ${first}`);
    for (const other of others) expect(other === first, `${what}: ${first} and ${other}`);
  }
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`preflight: ${message}`);
}
