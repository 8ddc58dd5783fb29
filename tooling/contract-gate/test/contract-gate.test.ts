// The contract gate run on fixture changes: a copy of the repository's buf module, its baseline
// recorded by the gate itself, then one change to the copy and the gate's verdict on it, as CI
// would give it on a commit with that change.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { removeTempDir } from "@folio/test-support/temp-dir";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ContractReport, checkContract, formatReport, passes, recordBaseline } from "../src/index.ts";
import { copyProtoModule, editProto, tempDir } from "./fixture.ts";

const FOLDER = "folio/v1/folder.proto";
const PROJECT = "folio/v1/project.proto";

let root: string;
let baselineDir: string;

beforeAll(async () => {
  root = tempDir();
  baselineDir = join(root, "baseline");
  mkdirSync(baselineDir);
  await recordBaseline({ protoDir: copyProtoModule(root), baselineDir });
});

afterAll(async () => {
  await removeTempDir(root);
});

/** The gate's report and message on a copy of the module changed by `edits`. */
async function gateOn(...edits: [file: string, edit: (source: string) => string][]) {
  const protoDir = copyProtoModule(root);
  for (const [file, edit] of edits) editProto(protoDir, file, edit);
  const report = await checkContract({ protoDir, baselineDir });
  return { report, message: formatReport(report, "proto/baseline") };
}

/** Adds `lines` at the end of the message or service `name`. */
function addTo(name: string, lines: string): (source: string) => string {
  return (source) =>
    source.replace(new RegExp(`(\\n(?:message|service) ${name} \\{[\\s\\S]*?)(\\n\\})`), `$1\n${lines}$2`);
}

function expectRefused(report: ContractReport, message: string) {
  expect(passes(report)).toBe(false);
  expect(message).toContain("incompatible changes against the baseline");
  expect(message).toContain("pnpm --filter @folio/proto baseline:update");
}

describe("the contract gate refuses", () => {
  it("a renumbered field (page_token 2 -> 7)", async () => {
    const { report, message } = await gateOn([
      PROJECT,
      (s) => s.replace(/\bpage_token = 2\b/, "page_token = 7"),
    ]);
    expectRefused(report, message);
    expect(report.proto.join("\n")).toMatch(
      /field "2" with name "page_token" on message "ListProjectsRequest"/i,
    );
    expect(message).toContain("page_token");
  });

  it("a removed field", async () => {
    const { report, message } = await gateOn([
      PROJECT,
      (s) => s.replace(/^[ \t]*string page_token = 2\b[^;]*;[ \t]*\n/m, "  reserved 2;\n"),
    ]);
    expectRefused(report, message);
    expect(report.proto.join("\n")).toContain(
      'Previously present field "2" with name "page_token" on message "ListProjectsRequest" was deleted',
    );
    expect(report.rest.join("\n")).toContain("[Removed] query parameter `pageToken`");
  });

  it("a renamed RPC", async () => {
    const { report, message } = await gateOn([
      PROJECT,
      (s) => s.replace("rpc ListProjects(", "rpc ListAllProjects("),
    ]);
    expectRefused(report, message);
    expect(message).toContain(
      'Previously present RPC "ListProjects" on service "ProjectService" was deleted',
    );
  });

  it("a changed REST path (/api/v1/projects -> /api/v1/project-list)", async () => {
    const { report, message } = await gateOn([
      PROJECT,
      (s) => s.replace('get: "/api/v1/projects"', 'get: "/api/v1/project-list"'),
    ]);
    expectRefused(report, message);
    // Nothing of the protobuf API changed: only the REST check sees it.
    expect(report.proto).toEqual([]);
    expect(message).toContain("[Removed] operation GET /projects");
  });

  it("a changed REST method (GET -> POST)", async () => {
    const { report, message } = await gateOn([
      PROJECT,
      (s) => s.replace('get: "/api/v1/projects"', 'post: "/api/v1/projects", body: "*"'),
    ]);
    expectRefused(report, message);
    expect(report.proto).toEqual([]);
    expect(message).toContain("[Removed] operation GET /projects");
  });

  it("a removed response code (CreateFolder's 201 becomes 200)", async () => {
    const { report, message } = await gateOn([
      FOLDER,
      (s) => s.replace(/^[ \t]*option \(folio\.v1\.http_success_status\) = 201;\n/m, ""),
    ]);
    expectRefused(report, message);
    expect(message).toContain("[Removed] Response 201");
  });

  it("a query parameter made required", async () => {
    const { report, message } = await gateOn([
      PROJECT,
      (s) => s.replace(/(string city = 4 \[\s*\(google\.api\.field_behavior\) = )OPTIONAL/, "$1REQUIRED"),
    ]);
    expectRefused(report, message);
    expect(report.proto).toEqual([]);
    expect(message).toContain("[Added] required status to required query parameter `city`");
  });

  it("a changed field type", async () => {
    const { report, message } = await gateOn([
      PROJECT,
      (s) => s.replace(/\bstring name = 3\b/, "int32 name = 3"),
    ]);
    expectRefused(report, message);
    expect(report.proto.join("\n")).toContain(
      'Field "3" with name "name" on message "Project" changed type from "string" to "int32"',
    );
    expect(report.rest.join("\n")).toContain("components.schemas.Project.properties.name.type");
  });

  it("an RPC's idempotency level lowered (ListProjects' NO_SIDE_EFFECTS removed)", async () => {
    const { report, message } = await gateOn([
      PROJECT,
      (s) => s.replace(/^[ \t]*option idempotency_level = NO_SIDE_EFFECTS;\n/m, ""),
    ]);
    expectRefused(report, message);
    // Clients that call it with Connect's GET would be refused.
    expect(report.proto.join("\n")).toContain(
      'RPC "ListProjects" on service "ProjectService" changed option "idempotency_level" from "NO_SIDE_EFFECTS" to "IDEMPOTENCY_UNKNOWN"',
    );
  });

  it("a new required request field", async () => {
    const { report, message } = await gateOn([
      FOLDER,
      addTo("CreateFolderRequest", "  string owner_name = 15 [(google.api.field_behavior) = REQUIRED];"),
    ]);
    expectRefused(report, message);
    // A new field is wire-compatible: the REST document's required list is what shows the break.
    expect(report.proto).toEqual([]);
    expect(message).toContain("[Added] required status to `ownerName` in Request Body");
  });
});

describe("the contract gate lets through", () => {
  it("a new optional field", async () => {
    const { report, message } = await gateOn([
      FOLDER,
      addTo("CreateFolderRequest", "  optional string note = 15 [(google.api.field_behavior) = OPTIONAL];"),
    ]);
    expect(report).toMatchObject({ proto: [], rest: [] });
    expect(report.compatibleRestChanges).toBeGreaterThan(0);
    expect(message).toContain("compatible with the baseline in proto/baseline");
  });

  it("a new RPC", async () => {
    const { report, message } = await gateOn(
      [
        PROJECT,
        addTo(
          "ProjectService",
          [
            "  rpc GetProject(GetProjectRequest) returns (Project) {",
            '    option (google.api.http) = {get: "/api/v1/projects/{id}"};',
            '    option (folio.v1.required_scope) = "project:read";',
            "  }",
          ].join("\n"),
        ),
      ],
      [
        PROJECT,
        (s) =>
          `${s}\nmessage GetProjectRequest {\n  string id = 1 [(google.api.field_behavior) = REQUIRED];\n}\n`,
      ],
    );
    expect(report).toMatchObject({ proto: [], rest: [] });
    expect(report.compatibleRestChanges).toBeGreaterThan(0);
    expect(message).toContain("compatible with the baseline in proto/baseline");
  });
});

describe("the contract gate lets through an RPC's idempotency level raised", () => {
  it("from none to IDEMPOTENT (CreateFolder: POST still served, retries as safe as before)", async () => {
    const { report, message } = await gateOn([
      FOLDER,
      (s) =>
        s.replace(
          /(rpc CreateFolder\(CreateFolderRequest\) returns \(CreateFolderResponse\) \{\n)/,
          "$1    option idempotency_level = IDEMPOTENT;\n",
        ),
    ]);
    expect(report).toMatchObject({ proto: [], rest: [] });
    expect(message).toContain("compatible with the baseline in proto/baseline");
  });

  it("from IDEMPOTENT to NO_SIDE_EFFECTS, against a baseline that had IDEMPOTENT", async () => {
    const ownBaseline = join(root, "idempotent-baseline");
    mkdirSync(ownBaseline);
    const lowered = copyProtoModule(root);
    editProto(lowered, PROJECT, (s) =>
      s.replace("idempotency_level = NO_SIDE_EFFECTS", "idempotency_level = IDEMPOTENT"),
    );
    await recordBaseline({ protoDir: lowered, baselineDir: ownBaseline });
    const report = await checkContract({ protoDir: copyProtoModule(root), baselineDir: ownBaseline });
    expect(report).toMatchObject({ proto: [], rest: [] });
  });
});

describe("re-recording the baseline", () => {
  it("is what lets an intended break through, and changes nothing when the API did not change", async () => {
    const ownBaseline = join(root, "intended-break-baseline");
    mkdirSync(ownBaseline);
    expect(await recordBaseline({ protoDir: copyProtoModule(root), baselineDir: ownBaseline })).toEqual([
      "image.json",
      "openapi.json",
    ]);
    const protoDir = copyProtoModule(root);
    editProto(protoDir, PROJECT, (s) => s.replace('get: "/api/v1/projects"', 'get: "/api/v1/project-list"'));
    const paths = { protoDir, baselineDir: ownBaseline };
    expect(passes(await checkContract(paths))).toBe(false);

    // The explicit act: both files change (the route is an option of the method in the image).
    expect(await recordBaseline(paths)).toEqual(["image.json", "openapi.json"]);
    expect(passes(await checkContract(paths))).toBe(true);
    expect(await recordBaseline(paths)).toEqual([]);
  });
});
