// The copy of Folio's protos that Debian's protoc-gen-go 1.3.5 and protoc-gen-grpc-gateway 1.6.4
// can read, printed from Folio's own descriptors at build time (never kept by hand).
//
// Why a copy: those generators predate proto3 `optional` and cannot resolve the `buf.validate` and
// `folio.v1` option extensions. The copy has no options but the HTTP rules, and writes each
// `optional T f = N;` as the synthetic oneof protoc makes of it (`oneof _f { T f = N; }`): the
// same field names, numbers, types, JSON names and wire format, which `sameFields` checks against
// the copy's own descriptors once protoc has read it.

import { type DescMethod, getOption, isFieldSet } from "@bufbuild/protobuf";
import {
  type DescriptorProto,
  type FieldDescriptorProto,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  type FileDescriptorProto,
  type FileDescriptorSet,
} from "@bufbuild/protobuf/wkt";
import { type HttpRule, http } from "@folio/googleapis";

/** The Go import path of the generated package (GOPATH mode), as `go_package` names it. */
export const GO_PACKAGE = "folio-go-peer/folio/v1";

/** Imports the copy keeps: everything else (validation, Folio's options) is dropped with its options. */
const KEPT_IMPORTS = new Set(["google/api/annotations.proto", "google/protobuf/timestamp.proto"]);

const SCALARS: Readonly<Partial<Record<FieldDescriptorProto_Type, string>>> = {
  [FieldDescriptorProto_Type.DOUBLE]: "double",
  [FieldDescriptorProto_Type.FLOAT]: "float",
  [FieldDescriptorProto_Type.INT64]: "int64",
  [FieldDescriptorProto_Type.UINT64]: "uint64",
  [FieldDescriptorProto_Type.INT32]: "int32",
  [FieldDescriptorProto_Type.FIXED64]: "fixed64",
  [FieldDescriptorProto_Type.FIXED32]: "fixed32",
  [FieldDescriptorProto_Type.BOOL]: "bool",
  [FieldDescriptorProto_Type.STRING]: "string",
  [FieldDescriptorProto_Type.BYTES]: "bytes",
  [FieldDescriptorProto_Type.UINT32]: "uint32",
  [FieldDescriptorProto_Type.SFIXED32]: "sfixed32",
  [FieldDescriptorProto_Type.SFIXED64]: "sfixed64",
  [FieldDescriptorProto_Type.SINT32]: "sint32",
  [FieldDescriptorProto_Type.SINT64]: "sint64",
};

/** The files of `folio/v1` to copy: those that declare messages or services, not option extensions. */
export function filesToCopy(set: FileDescriptorSet): FileDescriptorProto[] {
  return set.file.filter((file) => file.name.startsWith("folio/v1/") && file.extension.length === 0);
}

/** The text of the copy of one file; `methodOf` gives a method's descriptor, to read its HTTP rule. */
export function printDerivedProto(
  file: FileDescriptorProto,
  copied: ReadonlySet<string>,
  methodOf: (service: string, method: string) => DescMethod,
): string {
  const out = [
    `// Derived from ${file.name} by bench/throughput/src/go-peer/derived-protos.ts. Do not edit.`,
    'syntax = "proto3";',
    `package ${file.package};`,
    `option go_package = "${GO_PACKAGE};folio";`,
    ...file.dependency
      .filter((name) => KEPT_IMPORTS.has(name) || copied.has(name))
      .map((name) => `import "${name}";`),
  ];
  if (file.enumType.length > 0) throw new Error(`${file.name}: enums are not copied yet`);
  for (const message of file.messageType) out.push(...printMessage(file.name, message));
  for (const service of file.service) {
    out.push(`service ${service.name} {`);
    for (const method of service.method) {
      if (method.clientStreaming || method.serverStreaming)
        throw new Error(`${file.name}: ${method.name} streams, which the copy does not handle`);
      const rule = getOption(methodOf(`${file.package}.${service.name}`, method.name), http);
      out.push(`  rpc ${method.name}(${method.inputType}) returns (${method.outputType}) {`);
      if (rule.pattern.case !== undefined) out.push(`    option (google.api.http) = { ${printRule(rule)} };`);
      out.push("  }");
    }
    out.push("}");
  }
  return `${out.join("\n")}\n`;
}

function printMessage(fileName: string, message: DescriptorProto): string[] {
  if (message.nestedType.length > 0 || message.enumType.length > 0 || message.extension.length > 0) {
    throw new Error(`${fileName}: ${message.name} nests types, which the copy does not handle`);
  }
  const out = [`message ${message.name} {`];
  const realOneofs = new Map<number, string[]>();
  for (const field of message.field) {
    const line = `${label(field)}${typeName(field)} ${field.name} = ${field.number} [json_name = "${field.jsonName}"];`;
    if (field.proto3Optional) {
      out.push(`  oneof _${field.name} { ${line} }`);
    } else if (oneofOf(field) !== undefined) {
      const lines = realOneofs.get(field.oneofIndex) ?? [];
      lines.push(line);
      realOneofs.set(field.oneofIndex, lines);
    } else {
      out.push(`  ${line}`);
    }
  }
  for (const [index, lines] of realOneofs) {
    out.push(`  oneof ${message.oneofDecl[index]?.name} {`, ...lines.map((l) => `    ${l}`), "  }");
  }
  out.push("}");
  return out;
}

/** The index of the field's oneof, when it has one (descriptor.proto's fields are proto2: set or not). */
function oneofOf(field: FieldDescriptorProto): number | undefined {
  return isFieldSet(field, FieldDescriptorProtoSchema.field.oneofIndex) ? field.oneofIndex : undefined;
}

function label(field: FieldDescriptorProto): string {
  return field.label === FieldDescriptorProto_Label.REPEATED ? "repeated " : "";
}

function typeName(field: FieldDescriptorProto): string {
  if (field.type === FieldDescriptorProto_Type.MESSAGE || field.type === FieldDescriptorProto_Type.ENUM) {
    // Fully qualified, with protoc's leading dot: valid proto syntax, and unambiguous.
    return field.typeName;
  }
  const scalar = SCALARS[field.type];
  if (scalar === undefined) throw new Error(`field ${field.name}: type ${field.type} is not copied`);
  return scalar;
}

function printRule(rule: HttpRule): string {
  if (rule.additionalBindings.length > 0 || rule.responseBody !== "") {
    throw new Error("additional_bindings and response_body are not copied (grpc-gateway 1.6.4)");
  }
  const pattern =
    rule.pattern.case === "custom"
      ? `custom: { kind: "${rule.pattern.value.kind}" path: "${rule.pattern.value.path}" }`
      : `${rule.pattern.case}: "${rule.pattern.value}"`;
  return rule.body === "" ? pattern : `${pattern} body: "${rule.body}"`;
}

/**
 * Throws unless every message of the copy has the fields of Folio's: the same names, numbers,
 * labels, types, JSON names, and each `optional` field in the oneof protoc would synthesise for it.
 */
export function sameFields(original: readonly FileDescriptorProto[], copy: FileDescriptorSet): void {
  const copyFiles = new Map(copy.file.map((file) => [file.name, file]));
  for (const file of original) {
    const derived = copyFiles.get(file.name);
    if (derived === undefined) throw new Error(`the copy has no ${file.name}`);
    const shape = (f: FileDescriptorProto) =>
      f.messageType.map((message) => ({
        name: message.name,
        fields: message.field.map((field) => ({
          name: field.name,
          number: field.number,
          label: field.label,
          type: field.type,
          typeName: field.typeName,
          jsonName: field.jsonName,
          oneof: message.oneofDecl[oneofOf(field) ?? -1]?.name,
        })),
      }));
    const [a, b] = [JSON.stringify(shape(file)), JSON.stringify(shape(derived))];
    if (a !== b) throw new Error(`the copy of ${file.name} differs from it:\n${a}\n${b}`);
  }
}
