import type { DescEnum, DescMessage } from "@bufbuild/protobuf";
import type { SchemaObject } from "./openapi-types.js";

/**
 * What a component schema describes: a message one way, or an enum by value names or numbers.
 *
 * @private
 */
export type Variant = "request" | "response" | "enum" | "enum-number";

/** A component schema, and the `$ref`s to it, named once every component is known. @private */
export interface Component {
  readonly desc: DescMessage | DescEnum;
  readonly variant: Variant;
  schema: SchemaObject;
  readonly refs: SchemaObject[];
}

/**
 * Component names: the message or enum name without its package (`Folder`, `Outer.Inner`), or the
 * full name where two packages share one. A message that travels both ways has two schemas, the
 * response one under the plain name and the request one with an `Input` suffix; an enum written
 * as numbers has a `Number` suffix.
 *
 * @private
 */
export function nameComponents(components: ReadonlyMap<string, Component>): Record<string, SchemaObject> {
  const localName = (desc: DescMessage | DescEnum) => {
    const pkg = desc.file.proto.package;
    return pkg === "" ? desc.typeName : desc.typeName.slice(pkg.length + 1);
  };
  const typeNamesByLocalName = new Map<string, Set<string>>();
  for (const { desc } of components.values()) {
    const name = localName(desc);
    const typeNames = typeNamesByLocalName.get(name) ?? new Set();
    typeNames.add(desc.typeName);
    typeNamesByLocalName.set(name, typeNames);
  }
  const baseName = (desc: DescMessage | DescEnum) => {
    const name = localName(desc);
    return (typeNamesByLocalName.get(name)?.size ?? 0) > 1 ? desc.typeName : name;
  };
  const suffix = ({ desc, variant }: Component) => {
    if (variant === "enum-number") return "Number";
    const bothWays =
      components.has(`request:${desc.typeName}`) && components.has(`response:${desc.typeName}`);
    return variant === "request" && bothWays ? "Input" : "";
  };

  const named: [string, Component][] = [];
  const taken = new Set<string>();
  // Responses first, so that a plain name goes to the response schema.
  const ordered = [...components.values()].sort((a, b) => variantRank(a.variant) - variantRank(b.variant));
  for (const component of ordered) {
    const base = `${baseName(component.desc)}${suffix(component)}`;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
    taken.add(name);
    named.push([name, component]);
  }

  const schemas: Record<string, SchemaObject> = {};
  for (const [name, component] of named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const ref of component.refs) ref.$ref = `#/components/schemas/${name}`;
    schemas[name] = component.schema;
  }
  return schemas;
}

function variantRank(variant: Variant): number {
  return variant === "request" ? 1 : 0;
}
