import { type DescMessage, equals, fromBinary, type MessageShape } from "@bufbuild/protobuf";
import { CreateFolderResponseSchema, type Folder, ListProjectsResponseSchema } from "@folio/proto";
import {
  ACCEPT_ENCODING,
  type Contestant,
  GRPC_CONTESTANTS,
  PAGE_SIZE,
  runs,
  SERVER_OF,
  type Workload,
} from "./contestants.ts";
import { grpcUnary, unframe } from "./grpc-unary.ts";
import { createFolderRequest, grpcFrame, listProjectsRequest } from "./protobuf.ts";
import { comparableRestBody } from "./rest-body.ts";
import { sameCreateErrors } from "./same-errors.ts";
import type { ServerKind } from "./servers.ts";

/** What the preflight learnt: the size of a successful gRPC list response per contestant and workload. */
export interface Preflight {
  /** Keyed `<contestant>/<workload>`. */
  readonly grpcListDataBytes: Map<string, number>;
  /** Lines to print: what was checked. */
  readonly notes: string[];
}

const LIST = "/folio.v1.ProjectService/ListProjects";
const CREATE = "/folio.v1.FolderService/CreateFolder";

/**
 * One request of every contestant and workload before anything is measured, checked for what the
 * load generators cannot see: a list page of the asked size; the REST bodies of the REST servers
 * byte for byte equal (same rows, same page-token key: the same JSON and the same Link; the
 * gateway's as comparableRestBody reads it); every protobuf answer (Connect binary, gRPC-Web and
 * every gRPC server) decoded and the same message; a created folder, the same but for its id, name
 * and time on every protobuf protocol; and the same refusals of an invalid name and of a name
 * taken on every gRPC server, and on every REST one (sameCreateErrors). Throws on the first
 * mismatch.
 */
export async function preflight(
  urls: ReadonlyMap<ServerKind, string>,
  contestants: readonly Contestant[],
  workloads: readonly Workload[],
  token: string,
  prefix: string,
): Promise<Preflight> {
  const grpcListDataBytes = new Map<string, number>();
  const notes: string[] = [];
  const auth = { authorization: `Bearer ${token}` };
  const urlOf = (contestant: Contestant) => urls.get(SERVER_OF[contestant]) as string;

  /**
   * The one response message of a protobuf protocol (Connect binary, gRPC-Web or gRPC), and for
   * gRPC the bytes of DATA it came in.
   */
  const protobufCall = async <S extends DescMessage>(
    contestant: Contestant,
    path: string,
    request: Uint8Array,
    schema: S,
    what: string,
  ): Promise<{ message: MessageShape<S>; dataBytes?: number }> => {
    const url = urlOf(contestant);
    if (GRPC_CONTESTANTS.includes(contestant)) {
      const reply = await grpcUnary(url, path, auth, request);
      expect(reply.grpcStatus === "0", `${what}: grpc-status ${reply.grpcStatus} ${reply.grpcMessage ?? ""}`);
      expect(reply.messages.length === 1, `${what}: ${reply.messages.length} response messages`);
      return { message: fromBinary(schema, reply.messages[0] as Uint8Array), dataBytes: reply.dataBytes };
    }
    const grpcWeb = contestant === "folio-grpc-web";
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: grpcWeb
        ? { ...auth, "content-type": "application/grpc-web+proto", "x-grpc-web": "1" }
        : { ...auth, "content-type": "application/proto" },
      body: grpcWeb ? grpcFrame(request) : request,
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(response.status === 200, `${what}: HTTP ${response.status}`);
    if (!grpcWeb) return { message: fromBinary(schema, bytes) };
    const { messages, trailer } = unframe(bytes);
    expect(
      /^grpc-status: ?0\r$/m.test(trailer ?? ""),
      `${what}: gRPC-Web trailer ${JSON.stringify(trailer)}`,
    );
    expect(messages.length === 1, `${what}: ${messages.length} response messages`);
    return { message: fromBinary(schema, messages[0] as Uint8Array) };
  };

  for (const workload of workloads) {
    if (workload === "create") {
      const folders = new Map<Contestant, Folder>();
      for (const contestant of contestants) {
        if (isProtobuf(contestant)) continue;
        const what = `${contestant}, ${workload}`;
        const connect = contestant === "folio-connect-json";
        const response = await fetch(`${urlOf(contestant)}${connect ? CREATE : "/api/v1/folders"}`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ name: `${prefix}-preflight-${contestant}` }),
        });
        expect(response.ok, `${what}: HTTP ${response.status} ${await response.text()}`);
      }
      for (const contestant of contestants) {
        if (!isProtobuf(contestant)) continue;
        const what = `${contestant}, ${workload}`;
        const name = `${prefix}-preflight-${contestant}`;
        const { message } = await protobufCall(
          contestant,
          CREATE,
          createFolderRequest(name),
          CreateFolderResponseSchema,
          what,
        );
        const folder = message.folder;
        expect(folder !== undefined && folder.name === name, `${what}: not the folder asked for`);
        expect(folder.createdAt !== undefined && folder.id !== "", `${what}: no id or creation time`);
        folders.set(contestant, folder);
      }
      const [first, ...others] = [...folders];
      if (first !== undefined && others.length > 0) {
        const same = (a: Folder, b: Folder) =>
          a.orgId === b.orgId &&
          a.parentId === b.parentId &&
          a.color === b.color &&
          a.visibility === b.visibility &&
          a.createdByUserId === b.createdByUserId;
        for (const [contestant, folder] of others) {
          expect(same(folder, first[1]), `create: the folder of ${contestant} differs from ${first[0]}'s`);
        }
        notes.push(
          `create: the CreateFolderResponse of ${[...folders.keys()].join(", ")} decoded: the same but for id, name and time`,
        );
      }
      notes.push(...(await sameCreateErrors(contestants, urlOf, auth, prefix)));
      continue;
    }

    const pageSize = PAGE_SIZE[workload];
    const restBodies = new Map<Contestant, string>();
    const pages = new Map<Contestant, MessageShape<typeof ListProjectsResponseSchema>>();
    const coding = ACCEPT_ENCODING[workload];
    for (const contestant of contestants) {
      if (!runs(contestant, workload)) continue;
      const url = urlOf(contestant);
      const what = `${contestant}, ${workload}`;
      if (isProtobuf(contestant)) {
        const { message: page, dataBytes } = await protobufCall(
          contestant,
          LIST,
          listProjectsRequest(pageSize),
          ListProjectsResponseSchema,
          what,
        );
        expect(
          page.projects.length === pageSize,
          `${what}: ${page.projects.length} projects, not ${pageSize}`,
        );
        expect(page.nextPageToken !== "", `${what}: no next page token`);
        pages.set(contestant, page);
        if (dataBytes !== undefined) grpcListDataBytes.set(`${contestant}/${workload}`, dataBytes);
        continue;
      }
      if (contestant === "folio-connect-json") {
        const response = await fetch(`${url}${LIST}`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ pageSize }),
        });
        const body = (await response.json()) as { projects?: unknown[]; nextPageToken?: string };
        expect(response.status === 200, `${what}: HTTP ${response.status}`);
        expect(body.projects?.length === pageSize, `${what}: ${body.projects?.length} projects`);
        continue;
      }
      const response = await fetch(`${url}/api/v1/projects?pageSize=${pageSize}`, {
        // fetch asks for gzip, deflate and br by itself: what is measured asks for one or none.
        headers: { ...auth, "accept-encoding": coding ?? "identity" },
      });
      const body = await response.text();
      expect(response.status === 200, `${what}: HTTP ${response.status} ${body.slice(0, 300)}`);
      const encoding = response.headers.get("content-encoding");
      expect(encoding === (coding ?? null), `${what}: Content-Encoding ${encoding}, not ${coding ?? "none"}`);
      if (coding !== undefined) {
        notes.push(`${workload}: ${contestant} answers Content-Encoding ${coding}, decoded by fetch`);
      }
      const projects = (JSON.parse(body) as { projects: unknown[] }).projects;
      expect(projects.length === pageSize, `${what}: ${projects.length} projects, not ${pageSize}`);
      expect(response.headers.get("link") !== null, `${what}: no Link header`);
      // Page tokens are sealed with a random nonce: compared as where they stand.
      restBodies.set(
        contestant,
        sealed(`${response.headers.get("link")}\n${comparableRestBody(contestant, body)}`),
      );
    }
    const bodies = [...restBodies];
    if (bodies.length > 1) {
      const [first, ...others] = bodies;
      for (const [contestant, body] of others) {
        expect(
          body === first?.[1],
          `${workload}: the REST response of ${contestant} differs from ${first?.[0]}'s`,
        );
      }
      notes.push(
        `${workload}: REST bodies and Link headers of ${bodies.map(([c]) => c).join(", ")} are byte for byte equal but for the sealed page tokens`,
      );
    }
    const decoded = [...pages];
    if (decoded.length > 1) {
      const [first, ...others] = decoded;
      for (const [contestant, page] of others) {
        expect(
          first !== undefined &&
            equals(
              ListProjectsResponseSchema,
              { ...page, nextPageToken: "" },
              { ...first[1], nextPageToken: "" },
            ),
          `${workload}: the ListProjectsResponse of ${contestant} differs from ${first?.[0]}'s`,
        );
      }
      notes.push(
        `${workload}: the ListProjectsResponse of ${decoded.map(([c]) => c).join(", ")} decoded: the same message (rows; a sealed next_page_token each)`,
      );
    }
  }
  return { grpcListDataBytes, notes };
}

/** Contestants whose answers are protobuf messages. */
function isProtobuf(contestant: Contestant): boolean {
  return (
    GRPC_CONTESTANTS.includes(contestant) ||
    contestant === "folio-grpc-web" ||
    contestant === "folio-connect-proto"
  );
}

/** `text` with every page token (`2.` and its sealed bytes, in base64url) replaced by one mark. */
function sealed(text: string): string {
  return text.replace(/2\.[A-Za-z0-9_-]{40,}/g, "2.<sealed>");
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`preflight: ${message}`);
}
