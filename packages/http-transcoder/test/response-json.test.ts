import { create, type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { createFieldJsonWriter, createMessageJsonWriter } from "../src/response-json.js";
import { timestampJson } from "../src/timestamp-json.js";
import {
  BookSchema,
  Genre,
  ListBooksRequestSchema,
  ListBooksResponseSchema,
} from "./gen/transcodertest/v1/library_pb.js";

const options = { useProtoFieldName: false, enumAsInteger: false, registry: undefined };

function write<Desc extends DescMessage>(desc: Desc, message: MessageShape<Desc>, opts = options): unknown {
  return JSON.parse(createMessageJsonWriter(desc, opts)(message));
}

/** A message with every kind of field set (the oneof to its first member). */
const everything = create(ListBooksRequestSchema, {
  parent: "shelves/s1",
  pageSize: 10,
  pageToken: 't\u0000"x\u2028',
  tags: ["a", "b"],
  filter: { city: "Köln", minPages: 3, genre: Genre.HISTORY, place: { case: "country", value: "DE" } },
  genre: Genre.FICTION,
  publishedAfter: timestampFromMs(Date.UTC(2024, 0, 2, 3, 4, 5, 678)),
  maxAge: { seconds: 90n, nanos: 500_000_000 },
  readMask: { paths: ["title", "author_name"] },
  minRating: 4,
  available: false,
  includeDrafts: true,
  isbnPrefix: 9_007_199_254_740_993n,
  minScore: -0.5,
  cursor: new Uint8Array([0, 255, 1]),
  maxResults: 18_446_744_073_709_551_615n,
  // 7: a number the enum does not know, written as the number.
  genres: [Genre.FICTION, 7 as Genre],
  labels: { k: "v", "a b": "c" },
  filters: [{ city: "Paris" }],
  author: "",
  choice: { case: "choiceFlag", value: false },
  maxWeight: Number.NaN,
  minWeight: Number.NEGATIVE_INFINITY,
});

/**
 * The protobuf JSON mapping of `everything` with defaults written, and the members of oneofs that
 * are not set as null: what the writer must produce.
 */
function mappingWithNulls(names: { useProtoFieldName?: boolean; enumAsInteger?: boolean } = {}) {
  const key = (proto: string, json: string) => (names.useProtoFieldName ? proto : json);
  const json = toJson(ListBooksRequestSchema, everything, { alwaysEmitImplicit: true, ...names }) as Record<
    string,
    Record<string, unknown> & Array<Record<string, unknown>>
  >;
  return {
    ...json,
    [key("choice_text", "choiceText")]: null,
    filter: { ...json.filter, region: null },
    filters: (json.filters ?? []).map((filter) => ({ ...filter, country: null, region: null })),
  };
}

describe("the REST response writer", () => {
  it("writes what the protobuf JSON mapping writes, defaults included, unset oneof members as null", () => {
    expect(write(ListBooksRequestSchema, everything)).toEqual(mappingWithNulls());
  });

  it("writes every field of an empty message: defaults, and null where a field has presence", () => {
    expect(createMessageJsonWriter(ListBooksRequestSchema, options)(create(ListBooksRequestSchema))).toBe(
      JSON.stringify({
        parent: "",
        pageSize: 0,
        pageToken: "",
        tags: [],
        filter: null,
        genre: "GENRE_UNSPECIFIED",
        publishedAfter: null,
        maxAge: null,
        readMask: null,
        minRating: null,
        available: null,
        includeDrafts: false,
        isbnPrefix: "0",
        minScore: 0,
        cursor: "",
        maxResults: "0",
        genres: [],
        labels: {},
        filters: [],
        author: null,
        choiceFlag: null,
        choiceText: null,
        maxWeight: 0,
        minWeight: null,
      }),
    );
  });

  it("writes the fields of nested messages in the order the message declares them", () => {
    const text = createMessageJsonWriter(
      ListBooksResponseSchema,
      options,
    )(create(ListBooksResponseSchema, { books: [{ name: "b", details: { publisher: "P" } }] }));
    expect(text).toContain('"details":{"publisher":"P","edition":null,"formerTitles":[],"origin":null}');
    expect(Object.keys((JSON.parse(text) as { books: object[] }).books[0] ?? {})).toEqual(
      BookSchema.fields.map((field) => field.jsonName),
    );
  });

  it("writes Timestamps with 0, 3, 6 or 9 fractional digits, as the mapping does", () => {
    for (const nanos of [0, 5_000_000, 5_000, 5, 123_456_789]) {
      const book = create(BookSchema, { publishTime: { seconds: 1_700_000_000n, nanos } });
      const written = write(BookSchema, book) as { publishTime: string };
      expect(written.publishTime).toBe((toJson(BookSchema, book) as { publishTime: string }).publishTime);
    }
  });

  it("writes the date and time of every day of the Timestamp's range as Date does", () => {
    const firstDay = -719_162; // 0001-01-01
    const lastDay = 2_932_896; // 9999-12-31
    const wrong: string[] = [];
    for (let day = firstDay; day <= lastDay; day++) {
      // A different time of day each day, the day's first and last second included.
      const seconds =
        day * 86_400 + (day === firstDay ? 0 : day === lastDay ? 86_399 : (day * 7919) % 86_400);
      const expected = new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
      const written = timestampJson({ seconds: BigInt(seconds), nanos: 0 });
      if (written !== expected && wrong.push(`${expected}: ${written}`) >= 5) break;
    }
    expect(wrong).toEqual([]);
  });

  it("refuses a Timestamp out of the mapping's range, as the mapping does", () => {
    const book = create(BookSchema, { publishTime: { seconds: 253_402_300_800n, nanos: 0 } });
    expect(() => createMessageJsonWriter(BookSchema, options)(book)).toThrow(/9999-12-31/);
  });

  it("writes proto field names and enum numbers when asked", () => {
    const written = write(ListBooksRequestSchema, everything, {
      ...options,
      useProtoFieldName: true,
      enumAsInteger: true,
    });
    expect(written).toEqual(mappingWithNulls({ useProtoFieldName: true, enumAsInteger: true }));
  });

  it("leaves out the field it is told to", () => {
    const text = createMessageJsonWriter(
      ListBooksResponseSchema,
      options,
      ListBooksResponseSchema.field.nextPageToken,
    )(create(ListBooksResponseSchema, { nextPageToken: "n" }));
    expect(text).toBe('{"books":[]}');
  });

  it("writes one field's value, null when a field with presence is unset", () => {
    const writeFilter = createFieldJsonWriter(ListBooksRequestSchema.field.filter, options);
    expect(writeFilter(create(ListBooksRequestSchema))).toBe("null");
    expect(JSON.parse(writeFilter(everything))).toEqual(mappingWithNulls().filter);
  });
});
