import { type DescExtension, type DescFile, toBinary } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

/**
 * The files, symbols and extensions a reflection service answers from.
 *
 * @private
 */
export interface DescriptorIndex {
  /**
   * Look up a file by its path, for example "google/protobuf/timestamp.proto".
   */
  getFile(path: string): DescFile | undefined;
  /**
   * Look up the file that declares a fully-qualified symbol: a message, enum,
   * enum value, field, oneof, extension, service or method, for example
   * "acme.v1.UserService.GetUser". A leading dot is ignored.
   */
  getFileContainingSymbol(name: string): DescFile | undefined;
  /**
   * Look up an extension by the fully-qualified name of the message it
   * extends and its field number.
   */
  getExtension(extendee: string, number: number): DescExtension | undefined;
  /**
   * The field numbers of all extensions of a message, ascending, or undefined
   * if the message is unknown.
   */
  getExtensionNumbers(extendee: string): number[] | undefined;
  /**
   * The file and all files it imports, directly or not, as serialized
   * google.protobuf.FileDescriptorProto, the file first. Files named in `sent`
   * are left out, except the file itself; the names of returned files are
   * added to `sent`.
   */
  encodeWithDependencies(file: DescFile, sent: Set<string>): Uint8Array[];
}

/**
 * Index the given files and every file they import.
 *
 * When two files have the same path, or two declarations the same name, the
 * first one wins.
 *
 * @private
 */
export function createDescriptorIndex(files: Iterable<DescFile>): DescriptorIndex {
  const filesByPath = new Map<string, DescFile>();
  const symbols = new Map<string, DescFile>();
  const messages = new Set<string>();
  // Extensions by the type name of their extendee, then by field number.
  const extensions = new Map<string, Map<number, DescExtension>>();
  const encoded = new Map<DescFile, Uint8Array>();

  function addSymbol(name: string, file: DescFile) {
    if (!symbols.has(name)) {
      symbols.set(name, file);
    }
  }

  function addFile(file: DescFile) {
    const path = file.proto.name;
    if (filesByPath.has(path)) {
      return;
    }
    filesByPath.set(path, file);
    for (const type of nestedTypes(file)) {
      addSymbol(type.typeName, file);
      switch (type.kind) {
        case "message":
          messages.add(type.typeName);
          for (const field of type.fields) {
            addSymbol(`${type.typeName}.${field.name}`, file);
          }
          for (const oneof of type.oneofs) {
            addSymbol(`${type.typeName}.${oneof.name}`, file);
          }
          break;
        case "enum": {
          // Enum values are siblings of their enum, not children: in
          // `package a; enum E { V = 0; }`, the value is `a.V`.
          const scope = type.typeName.slice(0, type.typeName.length - type.name.length);
          for (const value of type.values) {
            addSymbol(scope + value.name, file);
          }
          break;
        }
        case "service":
          for (const method of type.methods) {
            addSymbol(`${type.typeName}.${method.name}`, file);
          }
          break;
        case "extension": {
          let byNumber = extensions.get(type.extendee.typeName);
          if (!byNumber) {
            byNumber = new Map();
            extensions.set(type.extendee.typeName, byNumber);
          }
          if (!byNumber.has(type.number)) {
            byNumber.set(type.number, type);
          }
          break;
        }
      }
    }
    for (const dependency of file.dependencies) {
      addFile(dependency);
    }
  }

  for (const file of files) {
    addFile(file);
  }

  function encode(file: DescFile): Uint8Array {
    let bytes = encoded.get(file);
    if (!bytes) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      encoded.set(file, bytes);
    }
    return bytes;
  }

  return {
    getFile(path) {
      return filesByPath.get(path);
    },
    getFileContainingSymbol(name) {
      return symbols.get(trimDot(name));
    },
    getExtension(extendee, number) {
      return extensions.get(trimDot(extendee))?.get(number);
    },
    getExtensionNumbers(extendee) {
      const typeName = trimDot(extendee);
      if (!messages.has(typeName)) {
        return undefined;
      }
      const numbers = Array.from(extensions.get(typeName)?.keys() ?? []);
      return numbers.sort((a, b) => a - b);
    },
    encodeWithDependencies(file, sent) {
      // Breadth-first, like grpc-go: the requested file, then its imports.
      const result: Uint8Array[] = [];
      const visited = new Set<DescFile>();
      const queue = [file];
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (visited.has(next)) {
          continue;
        }
        visited.add(next);
        if (next === file || !sent.has(next.proto.name)) {
          sent.add(next.proto.name);
          result.push(encode(next));
        }
        queue.push(...next.dependencies);
      }
      return result;
    },
  };
}

function trimDot(name: string): string {
  return name.startsWith(".") ? name.slice(1) : name;
}
