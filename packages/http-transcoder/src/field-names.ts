import type { DescField, DescMessage } from "@bufbuild/protobuf";

const fieldsByName = new WeakMap<DescMessage, Map<string, DescField>>();

/** A message's fields by proto name and by JSON name, as the JSON mapping accepts both. @private */
export function fieldByName(message: DescMessage, name: string): DescField | undefined {
  let fields = fieldsByName.get(message);
  if (fields === undefined) {
    fields = new Map();
    for (const field of message.fields) {
      fields.set(field.name, field);
      fields.set(field.jsonName, field);
    }
    fieldsByName.set(message, fields);
  }
  return fields.get(name);
}
