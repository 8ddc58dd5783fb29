/** Descriptor builders for the tests' APIs, whose descriptors are built by hand, not generated. */
import { create, type MessageInitShape, setExtension } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  type FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FieldOptionsSchema,
  MethodOptionsSchema,
} from "@bufbuild/protobuf/wkt";
import {
  FieldRulesSchema,
  field as fieldRules,
} from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { http } from "@folio/http-transcoder/google/api/annotations_pb.js";
import { type FieldBehavior, field_behavior } from "@folio/http-transcoder/google/api/field_behavior_pb.js";
import { HttpRuleSchema } from "@folio/http-transcoder/google/api/http_pb.js";

const { REPEATED, OPTIONAL } = FieldDescriptorProto_Label;

export type FieldInit = {
  name: string;
  number: number;
  type: FieldDescriptorProto_Type;
  typeName?: string;
  repeated?: boolean;
  proto3Optional?: boolean;
  oneofIndex?: number;
  behaviors?: FieldBehavior[];
  /** protovalidate rules, `(buf.validate.field)`. */
  rules?: MessageInitShape<typeof FieldRulesSchema>;
};

/** A field descriptor, its JSON name derived as protoc derives it. */
export function field(init: FieldInit) {
  const options = create(FieldOptionsSchema);
  if (init.behaviors !== undefined) setExtension(options, field_behavior, init.behaviors);
  if (init.rules !== undefined) setExtension(options, fieldRules, create(FieldRulesSchema, init.rules));
  return create(FieldDescriptorProtoSchema, {
    name: init.name,
    number: init.number,
    type: init.type,
    typeName: init.typeName ?? "",
    label: init.repeated ? REPEATED : OPTIONAL,
    jsonName: init.name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
    proto3Optional: init.proto3Optional ?? false,
    ...(init.oneofIndex !== undefined ? { oneofIndex: init.oneofIndex } : {}),
    ...(init.behaviors !== undefined || init.rules !== undefined ? { options } : {}),
  });
}

/** Method options holding one `google.api.http` rule. */
export function httpOptions(rule: MessageInitShape<typeof HttpRuleSchema>) {
  const options = create(MethodOptionsSchema);
  setExtension(options, http, create(HttpRuleSchema, rule));
  return options;
}
