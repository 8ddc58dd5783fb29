// CreateFolder's own rules (createFolderRules) and the case folding of a stored name (foldCase) cost
// time linear in the name and the Idempotency-Key header, for the names built to make them slow.
import { create } from "@bufbuild/protobuf";
import { CreateFolderRequestSchema } from "@folio/proto";
import { describe, it } from "vitest";
import { createFolderRules, foldCase } from "../../src/services/create-folder-request.js";
import { NAME_FAMILIES, type NameFamily, repeatTo } from "./hostile-names.js";
import { expectLinearCost } from "./linear-cost.js";

/** Half the 1 MiB body limit: 2N is the largest body the server reads (see linear-cost.ts on N). */
const SIZE = 1 << 19;

const noHeaders = new Headers();

describe("createFolderRules costs time linear in the name", () => {
  it.each(NAME_FAMILIES.map((family) => [family.label, family] as const))("%s", async (label, family) => {
    await expectLinearCost({
      label: `createFolderRules, ${label}`,
      size: SIZE,
      input: (size) => create(CreateFolderRequestSchema, { name: family.build(size) }),
      step: (request) => createFolderRules.check(request, noHeaders),
    });
  });
});

describe("createFolderRules costs time linear in the Idempotency-Key header", () => {
  /** Header values: visible ASCII (so only the length is wrong), or with a space at the end. */
  const KEYS = [
    { label: "visible ASCII", build: (size: number) => repeatTo("!~", size) },
    { label: "visible ASCII, then a space", build: (size: number) => `${repeatTo("a", size - 1)} ` },
    { label: "Latin-1 letters", build: (size: number) => repeatTo("\u00FF", size) },
  ];
  it.each(KEYS.map((key) => [key.label, key] as const))("%s", async (label, key) => {
    await expectLinearCost({
      label: `createFolderRules, an Idempotency-Key of ${label}`,
      size: SIZE,
      input: (size) => {
        const value = key.build(size);
        // requestId too, differing: the rule compares the two.
        const request = create(CreateFolderRequestSchema, { name: "a", requestId: `${value}x` });
        return { request, headers: new Headers({ "idempotency-key": value }) };
      },
      step: ({ request, headers }) => createFolderRules.check(request, headers),
    });
  });
});

/**
 * Names as foldCase gets them: only names that passed validation are folded, and validation refuses
 * runs of more than 30 combining marks (NFC of a longer run is quadratic in its length).
 */
const FOLDED_NAMES: readonly NameFamily[] = [
  ...NAME_FAMILIES.filter(
    (family) => !/unordered combining marks$/.test(family.label) || /30/.test(family.label),
  ),
  // Case mappings that change the length: ß to SS, İ to i and a combining dot, ŉ to ʼN.
  {
    label: "letters whose case mapping is longer",
    build: (size) => repeatTo("\u00DF\u0130\u0149\uFB03", size),
  },
  // Σ lower-cases by its context (final or medial), read across case-ignorable characters.
  {
    label: "sigmas between case-ignorable characters",
    build: (size) => repeatTo("\u0391\u03A3'.\u0301\u03A3", size),
  },
  { label: "Hangul jamo that NFC composes", build: (size) => repeatTo("\u1100\u1161\u11A8", size) },
];

describe("foldCase costs time linear in the name", () => {
  it.each(FOLDED_NAMES.map((family) => [family.label, family] as const))("%s", async (label, family) => {
    await expectLinearCost({
      label: `foldCase, ${label}`,
      size: SIZE,
      input: family.build,
      step: foldCase,
    });
  });
});
