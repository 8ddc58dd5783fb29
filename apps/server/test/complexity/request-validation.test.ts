// The whole validation of a request, as the server builds it (router.ts): protovalidate with every
// buf.validate rule and CEL expression of the API, then the service's own rules. Its cost is linear
// in every field a client sends, and in the Idempotency-Key header.
import { create, type DescMethod, type Message } from "@bufbuild/protobuf";
import {
  CreateFolderRequestSchema,
  FolderService,
  ListProjectsRequestSchema,
  ProjectService,
} from "@folio/proto";
import { describe, expect, it } from "vitest";
import { services } from "../../src/services/api.js";
import { createFolderRules } from "../../src/services/create-folder-request.js";
import { createRequestValidation } from "../../src/services/request-validation.js";
import { NAME_FAMILIES, repeatTo } from "./hostile-names.js";
import { expectLinearCost } from "./linear-cost.js";

const validation = createRequestValidation(
  services.flatMap((service) => service.methods),
  [createFolderRules],
);

/**
 * Half a million code units: 2N is a name near the 1 MiB body limit (see linear-cost.ts on N). The
 * pure-JavaScript RE2 some rules run on costs about a fifth of a second a MiB.
 */
const SIZE = 1 << 19;

/** A request to validate, with its headers. */
interface Call {
  readonly method: DescMethod;
  readonly request: Message;
  readonly headers: Headers;
}

const validate = ({ method, request, headers }: Call) => validation.check(method, request, headers);

const createFolder = (
  init: Parameters<typeof create<typeof CreateFolderRequestSchema>>[1],
  headers = {},
) => ({
  method: FolderService.method.createFolder,
  request: create(CreateFolderRequestSchema, init),
  headers: new Headers(headers),
});

const listProjects = (init: Parameters<typeof create<typeof ListProjectsRequestSchema>>[1]) => ({
  method: ProjectService.method.listProjects,
  request: create(ListProjectsRequestSchema, init),
  headers: new Headers(),
});

describe("a CreateFolder name costs validation time linear in its length", () => {
  it.each(NAME_FAMILIES.map((family) => [family.label, family] as const))("%s", async (label, family) => {
    await expectLinearCost({
      label: `request validation, a name of ${label}`,
      size: SIZE,
      input: (size) => createFolder({ name: family.build(size) }),
      step: validate,
    });
  });
});

/** Values of a field other than the name, each built to be read to its end by the field's rules. */
const OTHER_FIELDS: readonly { label: string; input: (size: number) => Call }[] = [
  {
    label: "CreateFolder requestId of visible ASCII (only its length is wrong)",
    input: (size) => createFolder({ name: "a", requestId: repeatTo("!~", size) }),
  },
  {
    label: "CreateFolder requestId of visible ASCII, then a space",
    input: (size) => createFolder({ name: "a", requestId: `${repeatTo("a", size - 1)} ` }),
  },
  {
    label: "CreateFolder color of hexadecimal digits",
    input: (size) => createFolder({ name: "a", color: `#${repeatTo("0", size)}` }),
  },
  {
    label: "CreateFolder parentId of UUIDs end to end",
    input: (size) =>
      createFolder({ name: "a", parentId: repeatTo("0b6d2f4e-1c2a-4b5e-8f9a-0c1d2e3f4a5b", size) }),
  },
  {
    label: "CreateFolder parentId of hexadecimal digits",
    input: (size) => createFolder({ name: "a", parentId: repeatTo("a", size) }),
  },
  {
    label: "CreateFolder Idempotency-Key header of visible ASCII",
    input: (size) => createFolder({ name: "a" }, { "idempotency-key": repeatTo("!~", size) }),
  },
  {
    label: "ListProjects pageToken of token characters, then a space",
    input: (size) => listProjects({ pageToken: `${repeatTo("a.-_0", size - 1)} ` }),
  },
  ...(["namePrefix", "city", "country", "postalCode"] as const).map((field) => ({
    label: `ListProjects ${field} of letters, then NUL`,
    input: (size: number) => listProjects({ [field]: `${repeatTo("a\u00E9", size - 1)}\u0000` }),
  })),
];

describe("every other field costs validation time linear in its length", () => {
  it.each(OTHER_FIELDS.map((field) => [field.label, field] as const))("%s", async (label, field) => {
    // The value breaks a rule, so validation reads it through rather than stopping at a shortcut.
    expect(validate(field.input(1024)).length).toBeGreaterThan(0);
    await expectLinearCost({
      label: `request validation, ${label}`,
      size: SIZE,
      input: field.input,
      step: validate,
    });
  });
});
