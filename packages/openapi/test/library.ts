/**
 * A small API that uses what the Folio API does not: path variables with segments, query
 * parameters, a body field, additional bindings, `response_body`, enums, maps, oneofs and the
 * well-known types. Its descriptors are built here, as a `FileDescriptorProto` with source info,
 * rather than generated: the package must work on any descriptors.
 */
import {
  create,
  createFileRegistry,
  type DescService,
  type FileRegistry,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import {
  type DescriptorProtoSchema,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_descriptor,
  file_google_protobuf_duration,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
  MessageOptionsSchema,
  type MethodOptionsSchema,
} from "@bufbuild/protobuf/wkt";
import { file_buf_validate_validate, Ignore } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { FieldBehavior } from "@folio/http-transcoder/google/api/field_behavior_pb.js";
import { HttpRuleSchema } from "@folio/http-transcoder/google/api/http_pb.js";
import { file_google_api_httpbody } from "@folio/http-transcoder/google/api/httpbody_pb.js";
import { field, httpOptions } from "./descriptor-builders.js";

const {
  STRING: TYPE_STRING,
  INT32: TYPE_INT32,
  INT64: TYPE_INT64,
  UINT64: TYPE_UINT64,
  BYTES: TYPE_BYTES,
  BOOL: TYPE_BOOL,
  ENUM: TYPE_ENUM,
  MESSAGE: TYPE_MESSAGE,
} = FieldDescriptorProto_Type;

function method(
  name: string,
  input: string,
  output: string,
  rule: MessageInitShape<typeof HttpRuleSchema>,
): {
  name: string;
  inputType: string;
  outputType: string;
  options: ReturnType<typeof create<typeof MethodOptionsSchema>>;
} {
  const options = httpOptions(rule);
  // A name starting with "." is fully qualified already.
  const qualify = (type: string) => (type.startsWith(".") ? type : `.library.v1.${type}`);
  return { name, inputType: qualify(input), outputType: qualify(output), options };
}

const messages: MessageInitShape<typeof DescriptorProtoSchema>[] = [
  {
    name: "Book",
    field: [
      field({ name: "name", number: 1, type: TYPE_STRING, behaviors: [FieldBehavior.IDENTIFIER] }),
      field({ name: "title", number: 2, type: TYPE_STRING, behaviors: [FieldBehavior.REQUIRED] }),
      field({ name: "page_count", number: 3, type: TYPE_INT64 }),
      field({ name: "cover", number: 4, type: TYPE_BYTES }),
      field({ name: "genre", number: 5, type: TYPE_ENUM, typeName: ".library.v1.Genre" }),
      field({ name: "tags", number: 6, type: TYPE_STRING, repeated: true }),
      field({
        name: "ratings",
        number: 7,
        type: TYPE_MESSAGE,
        typeName: ".library.v1.Book.RatingsEntry",
        repeated: true,
      }),
      field({
        name: "published_at",
        number: 8,
        type: TYPE_MESSAGE,
        typeName: ".google.protobuf.Timestamp",
        behaviors: [FieldBehavior.OUTPUT_ONLY],
      }),
      field({ name: "read_time", number: 9, type: TYPE_MESSAGE, typeName: ".google.protobuf.Duration" }),
      field({ name: "subtitle", number: 10, type: TYPE_MESSAGE, typeName: ".google.protobuf.StringValue" }),
      field({ name: "isbn", number: 11, type: TYPE_STRING, oneofIndex: 0 }),
      field({ name: "doi", number: 12, type: TYPE_STRING, oneofIndex: 0 }),
      field({ name: "sequel", number: 13, type: TYPE_MESSAGE, typeName: ".library.v1.Book" }),
      field({ name: "metadata", number: 14, type: TYPE_MESSAGE, typeName: ".google.protobuf.Struct" }),
      field({ name: "copies", number: 15, type: TYPE_UINT64 }),
      field({ name: "secret", number: 16, type: TYPE_STRING, behaviors: [FieldBehavior.INPUT_ONLY] }),
      field({
        name: "author_id",
        number: 17,
        type: TYPE_STRING,
        // A UUID when set: without IGNORE_IF_ZERO_VALUE, leaving it out ("") would break the rule.
        rules: {
          ignore: Ignore.IF_ZERO_VALUE,
          type: { case: "string", value: { wellKnown: { case: "uuid", value: true } } },
        },
      }),
    ],
    oneofDecl: [{ name: "origin" }],
    nestedType: [
      {
        name: "RatingsEntry",
        field: [
          field({ name: "key", number: 1, type: TYPE_STRING }),
          field({ name: "value", number: 2, type: TYPE_INT32 }),
        ],
        options: create(MessageOptionsSchema, { mapEntry: true }),
      },
    ],
  },
  {
    name: "Filter",
    field: [
      field({ name: "genres", number: 1, type: TYPE_ENUM, typeName: ".library.v1.Genre", repeated: true }),
      field({ name: "since", number: 2, type: TYPE_MESSAGE, typeName: ".google.protobuf.Timestamp" }),
      field({ name: "in_print", number: 3, type: TYPE_BOOL, proto3Optional: true, oneofIndex: 0 }),
      field({ name: "parent", number: 4, type: TYPE_MESSAGE, typeName: ".library.v1.Filter" }),
    ],
    oneofDecl: [{ name: "_in_print" }],
  },
  {
    name: "GetBookRequest",
    field: [field({ name: "name", number: 1, type: TYPE_STRING, behaviors: [FieldBehavior.REQUIRED] })],
  },
  {
    name: "ListBooksRequest",
    field: [
      field({ name: "parent", number: 1, type: TYPE_STRING, behaviors: [FieldBehavior.REQUIRED] }),
      field({ name: "page_size", number: 2, type: TYPE_INT32 }),
      field({ name: "filter", number: 3, type: TYPE_MESSAGE, typeName: ".library.v1.Filter" }),
      field({ name: "read_mask", number: 4, type: TYPE_MESSAGE, typeName: ".google.protobuf.FieldMask" }),
      field({
        name: "labels",
        number: 5,
        type: TYPE_MESSAGE,
        typeName: ".library.v1.ListBooksRequest.LabelsEntry",
        repeated: true,
      }),
      field({ name: "min_rating", number: 6, type: TYPE_MESSAGE, typeName: ".google.protobuf.Int32Value" }),
    ],
    nestedType: [
      {
        name: "LabelsEntry",
        field: [
          field({ name: "key", number: 1, type: TYPE_STRING }),
          field({ name: "value", number: 2, type: TYPE_STRING }),
        ],
        options: create(MessageOptionsSchema, { mapEntry: true }),
      },
    ],
  },
  {
    name: "ListBooksResponse",
    field: [
      field({ name: "books", number: 1, type: TYPE_MESSAGE, typeName: ".library.v1.Book", repeated: true }),
      field({ name: "next_page_token", number: 2, type: TYPE_STRING }),
    ],
  },
  {
    name: "CreateBookRequest",
    field: [
      field({ name: "parent", number: 1, type: TYPE_STRING, behaviors: [FieldBehavior.REQUIRED] }),
      field({ name: "book_id", number: 2, type: TYPE_STRING }),
      field({ name: "title", number: 3, type: TYPE_STRING, behaviors: [FieldBehavior.REQUIRED] }),
    ],
  },
  {
    name: "UpdateBookRequest",
    field: [
      field({
        name: "book",
        number: 1,
        type: TYPE_MESSAGE,
        typeName: ".library.v1.Book",
        behaviors: [FieldBehavior.REQUIRED],
      }),
      field({ name: "update_mask", number: 2, type: TYPE_MESSAGE, typeName: ".google.protobuf.FieldMask" }),
    ],
  },
];

/** `library/v1/library.proto`, with comments on a few elements (SourceCodeInfo paths). */
export const libraryFile = create(FileDescriptorProtoSchema, {
  name: "library/v1/library.proto",
  package: "library.v1",
  syntax: "proto3",
  dependency: [
    "buf/validate/validate.proto",
    "google/api/httpbody.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/wrappers.proto",
  ],
  messageType: messages,
  enumType: [
    {
      name: "Genre",
      value: [
        { name: "GENRE_UNSPECIFIED", number: 0 },
        { name: "GENRE_FICTION", number: 1 },
        { name: "GENRE_POETRY", number: 2 },
      ],
    },
  ],
  service: [
    {
      name: "LibraryService",
      method: [
        method("GetBook", "GetBookRequest", "Book", {
          pattern: { case: "get", value: "/v1/{name=shelves/*/books/*}" },
          additionalBindings: [
            create(HttpRuleSchema, { pattern: { case: "get", value: "/v1/books/{name}" } }),
          ],
        }),
        method("ListBooks", "ListBooksRequest", "ListBooksResponse", {
          pattern: { case: "get", value: "/v1/{parent=shelves/*}/books" },
          additionalBindings: [
            create(HttpRuleSchema, {
              pattern: { case: "get", value: "/v1/{parent=shelves/*}/books:titles" },
              responseBody: "books",
            }),
          ],
        }),
        method("CreateBook", "CreateBookRequest", "Book", {
          pattern: { case: "post", value: "/v1/{parent=shelves/*}/books" },
          body: "*",
        }),
        method("UpdateBook", "UpdateBookRequest", "Book", {
          pattern: { case: "patch", value: "/v1/{book.name=shelves/*/books/*}" },
          body: "book",
        }),
      ],
    },
    {
      name: "CoverService",
      method: [
        method("GetCover", "GetBookRequest", ".google.api.HttpBody", {
          pattern: { case: "get", value: "/v1/{name=shelves/*/books/*}/cover" },
        }),
        method("PutCover", ".google.api.HttpBody", ".google.api.HttpBody", {
          pattern: { case: "put", value: "/v1/covers" },
          body: "*",
        }),
        {
          ...method("WatchBooks", "GetBookRequest", "Book", {
            pattern: { case: "get", value: "/v1/{name=shelves/*/books/*}:watch" },
          }),
          serverStreaming: true,
        },
        {
          ...method("DownloadCover", "GetBookRequest", ".google.api.HttpBody", {
            pattern: { case: "get", value: "/v1/{name=shelves/*/books/*}/cover:download" },
          }),
          serverStreaming: true,
        },
      ],
    },
  ],
  sourceCodeInfo: {
    location: [
      { path: [4, 0], leadingComments: " A book of a shelf.\n" },
      { path: [4, 0, 2, 1], leadingComments: " Title of the book.\n Shown on the cover.\n" },
      { path: [5, 0], leadingComments: " Kinds of books.\n" },
      { path: [5, 0, 2, 1], trailingComments: " Novels and stories.\n" },
      { path: [6, 0], leadingComments: " Lends books.\n" },
      { path: [6, 0, 2, 0], leadingComments: " Returns one book.\n" },
    ],
  },
});

/** The files the library imports (and validate.proto's own imports). */
const wellKnownFiles = [
  file_buf_validate_validate,
  file_google_protobuf_descriptor,
  file_google_api_httpbody,
  file_google_protobuf_duration,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
];

/** The registry of a library file (this one, or a variant of it) and the files it imports. */
export function libraryRegistryOf(file: typeof libraryFile): FileRegistry {
  return createFileRegistry(file, (name) =>
    wellKnownFiles.find((wellKnown) => wellKnown.name === name.replace(/\.proto$/, "")),
  );
}

export const libraryRegistry: FileRegistry = libraryRegistryOf(libraryFile);

export const LibraryService = libraryRegistry.getService("library.v1.LibraryService") as DescService;

/** Methods whose request or response is a google.api.HttpBody, and server-streaming ones. */
export const CoverService = libraryRegistry.getService("library.v1.CoverService") as DescService;
