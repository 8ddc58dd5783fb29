// A service that exercises what google.api.http rules and method options can say, built as
// descriptors at run time (as protoc would write them), so that the client is tested on rules
// Folio's own API does not use yet: multi-segment variables, custom verbs, body fields,
// response_body, PATCH and DELETE, repeated, enum, 64-bit, Timestamp and nested query parameters,
// maps, and each idempotency level.

import type { MessageInitShape } from "@bufbuild/protobuf";
import { create, createFileRegistry, type DescService, setExtension } from "@bufbuild/protobuf";
import {
  type DescriptorProto,
  DescriptorProtoSchema,
  FileDescriptorProtoSchema,
  file_google_protobuf_timestamp,
  MethodOptions_IdempotencyLevel as Idempotency,
  FieldDescriptorProto_Label as Label,
  MethodDescriptorProtoSchema,
  MethodOptionsSchema,
  FieldDescriptorProto_Type as Type,
} from "@bufbuild/protobuf/wkt";
import { type HttpRule, HttpRuleSchema, http } from "@folio/googleapis";

/** A field: its name, number, type (a scalar, or a message or enum by its full name) and whether repeated. */
type FieldSpec = [
  name: string,
  number: number,
  type: Type | { message: string } | { enum: string },
  repeated?: boolean,
];

function message(name: string, fields: FieldSpec[], nested: DescriptorProto[] = []): DescriptorProto {
  return create(DescriptorProtoSchema, {
    name,
    nestedType: nested,
    field: fields.map(([fieldName, number, type, repeated]) => ({
      name: fieldName,
      // protoc always writes the JSON name.
      jsonName: fieldName.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
      number,
      label: repeated ? Label.REPEATED : Label.OPTIONAL,
      ...(typeof type === "number"
        ? { type }
        : "message" in type
          ? { type: Type.MESSAGE, typeName: type.message }
          : { type: Type.ENUM, typeName: type.enum }),
    })),
  });
}

function method(
  name: string,
  input: string,
  output: string,
  rule: MessageInitShape<typeof HttpRuleSchema>,
  idempotency = Idempotency.IDEMPOTENCY_UNKNOWN,
) {
  const options = create(MethodOptionsSchema, { idempotencyLevel: idempotency });
  setExtension(options, http, create(HttpRuleSchema, rule) as HttpRule);
  return create(MethodDescriptorProtoSchema, {
    name,
    inputType: `.library.v1.${input}`,
    outputType: `.library.v1.${output}`,
    options,
  });
}

const labelsEntry = create(DescriptorProtoSchema, {
  name: "LabelsEntry",
  field: [
    { name: "key", jsonName: "key", number: 1, label: Label.OPTIONAL, type: Type.STRING },
    { name: "value", jsonName: "value", number: 2, label: Label.OPTIONAL, type: Type.STRING },
  ],
  options: { mapEntry: true },
});

const file = create(FileDescriptorProtoSchema, {
  name: "library/v1/library.proto",
  package: "library.v1",
  syntax: "proto3",
  dependency: ["google/protobuf/timestamp.proto"],
  enumType: [
    {
      name: "Kind",
      value: [
        { name: "KIND_UNSPECIFIED", number: 0 },
        { name: "KIND_NOVEL", number: 1 },
      ],
    },
  ],
  messageType: [
    message("Book", [
      ["name", 1, Type.STRING],
      ["title", 2, Type.STRING],
    ]),
    message("Filter", [
      ["author", 1, Type.STRING],
      ["year", 2, Type.INT32],
    ]),
    message("GetBookRequest", [["name", 1, Type.STRING]]),
    message(
      "SearchBooksRequest",
      [
        ["shelf", 1, Type.STRING],
        ["tags", 2, Type.STRING, true],
        ["kind", 3, { enum: ".library.v1.Kind" }],
        ["since", 4, { message: ".google.protobuf.Timestamp" }],
        ["min_count", 5, Type.INT64],
        ["filter", 6, { message: ".library.v1.Filter" }],
        ["page_size", 7, Type.INT32],
        ["page_token", 8, Type.STRING],
        ["labels", 9, { message: ".library.v1.SearchBooksRequest.LabelsEntry" }, true],
      ],
      [labelsEntry],
    ),
    message("SearchBooksResponse", [
      ["books", 1, { message: ".library.v1.Book" }, true],
      ["next_page_token", 2, Type.STRING],
    ]),
    message("CreateBookRequest", [
      ["shelf", 1, Type.STRING],
      ["book", 2, { message: ".library.v1.Book" }],
    ]),
    message("UpdateBookRequest", [
      ["book", 1, { message: ".library.v1.Book" }],
      ["request_id", 2, Type.STRING],
    ]),
    message("DeleteBookRequest", [
      ["name", 1, Type.STRING],
      ["force", 2, Type.BOOL],
    ]),
    message("Empty", []),
  ],
  service: [
    {
      name: "LibraryService",
      method: [
        method(
          "GetBook",
          "GetBookRequest",
          "Book",
          { pattern: { case: "get", value: "/v1/{name=shelves/*/books/*}" } },
          Idempotency.NO_SIDE_EFFECTS,
        ),
        method("GetBookTitle", "GetBookRequest", "Book", {
          pattern: { case: "get", value: "/v1/{name=shelves/*/books/*}:title" },
          responseBody: "title",
        }),
        method(
          "SearchBooks",
          "SearchBooksRequest",
          "SearchBooksResponse",
          { pattern: { case: "get", value: "/v1/shelves/{shelf}/books:search" } },
          Idempotency.NO_SIDE_EFFECTS,
        ),
        method("CreateBook", "CreateBookRequest", "Book", {
          pattern: { case: "post", value: "/v1/shelves/{shelf}/books" },
          body: "*",
        }),
        method("UpdateBook", "UpdateBookRequest", "Book", {
          pattern: { case: "patch", value: "/v1/{book.name=shelves/*/books/*}" },
          body: "book",
        }),
        method(
          "DeleteBook",
          "DeleteBookRequest",
          "Empty",
          { pattern: { case: "delete", value: "/v1/{name=shelves/*/books/*}" } },
          Idempotency.IDEMPOTENT,
        ),
      ],
    },
  ],
});

/** The library service's descriptor. */
export const LibraryService: DescService = (() => {
  const registry = createFileRegistry(file, (name) =>
    name === "google/protobuf/timestamp.proto" ? file_google_protobuf_timestamp : undefined,
  );
  const service = registry.getService("library.v1.LibraryService");
  if (service === undefined) throw new Error("no library.v1.LibraryService");
  return service;
})();
