import type { DescField } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** The values of `google.api.FieldBehavior` ([AIP-203](https://google.aip.dev/203)). */
export type FieldBehavior =
  | "OPTIONAL"
  | "REQUIRED"
  | "OUTPUT_ONLY"
  | "INPUT_ONLY"
  | "IMMUTABLE"
  | "UNORDERED_LIST"
  | "NON_EMPTY_DEFAULT"
  | "IDENTIFIER";

/** Indexed by enum number, as declared in google/api/field_behavior.proto. */
const FIELD_BEHAVIORS: readonly (FieldBehavior | undefined)[] = [
  undefined, // FIELD_BEHAVIOR_UNSPECIFIED
  "OPTIONAL",
  "REQUIRED",
  "OUTPUT_ONLY",
  "INPUT_ONLY",
  "IMMUTABLE",
  "UNORDERED_LIST",
  "NON_EMPTY_DEFAULT",
  "IDENTIFIER",
];

/** `extend google.protobuf.FieldOptions { repeated FieldBehavior field_behavior = 1052; }` */
const FIELD_BEHAVIOR_EXTENSION_NUMBER = 1052;

/**
 * The `(google.api.field_behavior)` annotations of a field.
 *
 * They are read from the option's wire form, kept by protobuf-es as unknown fields of the
 * `FieldOptions`, rather than with `getOption()`: that needs the extension's generated descriptor,
 * and this package knows no particular API's generated code. The option is repeated and may come
 * packed or not (google/api declares it `packed = false`); both are read.
 */
export function getFieldBehaviors(field: DescField): ReadonlySet<FieldBehavior> {
  const behaviors = new Set<FieldBehavior>();
  const add = (value: number) => {
    const behavior = FIELD_BEHAVIORS[value];
    if (behavior !== undefined) behaviors.add(behavior);
  };
  for (const unknown of field.proto.options?.$unknown ?? []) {
    if (unknown.no !== FIELD_BEHAVIOR_EXTENSION_NUMBER) continue;
    const reader = new BinaryReader(unknown.data);
    if (unknown.wireType === WireType.Varint) {
      add(reader.int32());
    } else if (unknown.wireType === WireType.LengthDelimited) {
      const end = reader.uint32() + reader.pos;
      while (reader.pos < end) add(reader.int32());
    }
  }
  return behaviors;
}
