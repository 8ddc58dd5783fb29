/**
 * One rule, declared once in the proto, reaches every side that states or checks it: a copy of
 * proto/ with `max_len` of CreateFolder's `request_id` changed from 255 to 10 is built with buf,
 * and the OpenAPI document of those descriptors, protovalidate's verdict told with the mapping
 * the server and the browser app share (`requestViolations` of @folio/proto), and the server's
 * validation step built on those descriptors all follow it.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  create,
  createFileRegistry,
  type DescMessage,
  type DescService,
  fromBinary,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { createValidator } from "@bufbuild/protovalidate";
import { createOpenApiDocument, type SchemaObject } from "@folio/openapi";
import { CreateFolderRequestSchema, requestViolations } from "@folio/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequestValidation } from "../src/services/request-validation.js";

/** The buf CLI of the workspace (a dev dependency of proto/). */
const BUF = fileURLToPath(new URL("../../../proto/node_modules/@bufbuild/buf/bin/buf", import.meta.url));
const PROTO = fileURLToPath(new URL("../../../proto/", import.meta.url));

const RULE = "(buf.validate.field).string.max_len = 255,";
const SENTENCE = '(folio.v1.rule_description) = "must be 1 to 255 visible ASCII characters"';

/** The descriptors of a copy of proto/, its folder.proto edited first, built by buf in a temp dir. */
async function buildCopy(dir: string, edit: (folderProto: string) => string) {
  await cp(join(PROTO, "folio"), join(dir, "folio"), { recursive: true });
  await cp(join(PROTO, "vendor"), join(dir, "vendor"), { recursive: true });
  await cp(join(PROTO, "buf.yaml"), join(dir, "buf.yaml"));
  // buf.yaml's googleapis module is google-proto-files in node_modules.
  await symlink(join(PROTO, "node_modules"), join(dir, "node_modules"));
  const folderProto = join(dir, "folio/v1/folder.proto");
  await writeFile(folderProto, edit(await readFile(folderProto, "utf8")));
  await promisify(execFile)(BUF, ["build", "--path", "folio", "-o", "image.binpb"], { cwd: dir });
  const registry = createFileRegistry(
    fromBinary(FileDescriptorSetSchema, await readFile(join(dir, "image.binpb"))),
  );
  return {
    service: registry.getService("folio.v1.FolderService") as DescService,
    request: registry.getMessage("folio.v1.CreateFolderRequest") as DescMessage,
  };
}

/** Replaces text that must be there: the test fails loudly when the proto no longer has it. */
function replaceOnce(text: string, from: string, to: string): string {
  expect(text).toContain(from);
  return text.replace(from, to);
}

describe("a rule changed in a copy of the proto (request_id max_len 255 -> 10)", () => {
  const dirs: string[] = [];
  let original: Awaited<ReturnType<typeof buildCopy>>;
  let changed: Awaited<ReturnType<typeof buildCopy>>;
  const validator = createValidator();
  /** An idempotency key of 11 visible ASCII characters. */
  const request = { name: "Reports", requestId: "key-0123456" };

  beforeAll(async () => {
    const [a, b] = await Promise.all([0, 1].map(() => mkdtemp(join(tmpdir(), "folio-rule-change-"))));
    dirs.push(a as string, b as string);
    [original, changed] = await Promise.all([
      buildCopy(a as string, (proto) => proto),
      buildCopy(b as string, (proto) =>
        replaceOnce(
          replaceOnce(proto, RULE, "(buf.validate.field).string.max_len = 10,"),
          SENTENCE,
          '(folio.v1.rule_description) = "must be 1 to 10 visible ASCII characters"',
        ),
      ),
    ]);
  }, 120_000);

  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const requestIdSchema = (service: DescService): SchemaObject | undefined => {
    const document = createOpenApiDocument({ services: [service], info: { title: "Folio", version: "v1" } });
    return document.components.schemas.CreateFolderRequest?.properties?.requestId;
  };

  it("the OpenAPI document says the new maxLength", () => {
    expect(requestIdSchema(original.service)).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(requestIdSchema(changed.service)).toMatchObject({ minLength: 1, maxLength: 10 });
  });

  it("protovalidate refuses the longer key, told as the server and the browser tell it", () => {
    const verdict = (schema: DescMessage) =>
      requestViolations(validator, schema, create(schema, request as never));
    // The copy as it is judges like the descriptors the server and the browser are built with.
    expect(verdict(original.request)).toEqual([]);
    expect(verdict(CreateFolderRequestSchema)).toEqual([]);
    expect(verdict(changed.request)).toEqual([
      { field: "requestId", description: "must be 1 to 10 visible ASCII characters" },
    ]);
  });

  it("the server's validation step, built on the changed descriptors, refuses it with that violation", () => {
    const method = (service: DescService) => {
      const found = service.methods.find((candidate) => candidate.name === "CreateFolder");
      if (found === undefined) throw new Error("CreateFolder is missing from the copy");
      return found;
    };
    // The step every protocol runs (the validation interceptor's), as the server builds it at
    // start-up from the descriptors it serves.
    const check = (service: DescService) => {
      const validation = createRequestValidation([method(service)], []);
      return validation.check(
        method(service),
        create(method(service).input, request as never),
        new Headers(),
      );
    };
    expect(check(original.service)).toEqual([]);
    expect(check(changed.service)).toEqual([
      { field: "requestId", description: "must be 1 to 10 visible ASCII characters" },
    ]);
  });
});
