// A method's errors as clients are told them: its service's `(folio.v1.shared_errors)` merged with
// its own `(folio.v1.errors)` by effectiveErrors, which the OpenAPI document reads.
import {
  create,
  createFileRegistry,
  type DescService,
  type MessageInitShape,
  setExtension,
} from "@bufbuild/protobuf";
import {
  FileDescriptorProtoSchema,
  file_google_protobuf_empty,
  MethodOptionsSchema,
  ServiceOptionsSchema,
} from "@bufbuild/protobuf/wkt";
import {
  declaredErrors,
  type ErrorResponse,
  ErrorResponseSchema,
  effectiveErrors,
  errors,
  required_scope,
  requiredScope,
  shared_errors,
  sharedErrors,
} from "@folio/proto";
import { describe, expect, it } from "vitest";
import { services } from "../src/services/api.js";

type ErrorInit = MessageInitShape<typeof ErrorResponseSchema>;

/** A service `test.Things` with the shared errors, and a method of each given errors and scope. */
function thingsService(
  shared: readonly ErrorInit[],
  methods: Readonly<Record<string, { scope?: string; errors?: readonly ErrorInit[] }>>,
): DescService {
  const serviceOptions = create(ServiceOptionsSchema);
  setExtension(
    serviceOptions,
    shared_errors,
    shared.map((error) => create(ErrorResponseSchema, error)),
  );
  const file = create(FileDescriptorProtoSchema, {
    name: "test/things.proto",
    package: "test",
    syntax: "proto3",
    dependency: ["google/protobuf/empty.proto"],
    service: [
      {
        name: "Things",
        options: serviceOptions,
        method: Object.entries(methods).map(([name, declared]) => {
          const options = create(MethodOptionsSchema);
          if (declared.scope !== undefined) setExtension(options, required_scope, declared.scope);
          setExtension(
            options,
            errors,
            (declared.errors ?? []).map((error) => create(ErrorResponseSchema, error)),
          );
          return {
            name,
            inputType: ".google.protobuf.Empty",
            outputType: ".google.protobuf.Empty",
            options,
          };
        }),
      },
    ],
  });
  const registry = createFileRegistry(file, (name) =>
    name === "google/protobuf/empty.proto" ? file_google_protobuf_empty : undefined,
  );
  const service = registry.getService("test.Things");
  if (service === undefined) throw new Error("no test.Things");
  return service;
}

const plain = (list: readonly ErrorResponse[]) => list.map(({ code, condition }) => ({ code, condition }));

describe("effectiveErrors", () => {
  const service = thingsService(
    [
      { code: "unauthenticated", condition: "No token." },
      { code: "permission_denied", condition: "The token lacks the scope {required_scope}." },
      { code: "not_found", condition: "No route matches." },
    ],
    {
      Plain: { scope: "things:read" },
      Own: {
        scope: "things:write",
        errors: [
          { code: "already_exists", condition: "The thing exists." },
          { code: "not_found", condition: "The parent does not exist." },
        ],
      },
    },
  );
  const [plainMethod, ownMethod] = service.methods;

  it("gives a method that declares none every shared error, the placeholder filled with its scope", () => {
    expect(plain(effectiveErrors(plainMethod!))).toEqual([
      { code: "unauthenticated", condition: "No token." },
      { code: "permission_denied", condition: "The token lacks the scope things:read." },
      { code: "not_found", condition: "No route matches." },
    ]);
  });

  it("puts a method's own errors first, and its condition for a shared code in place of the service's", () => {
    expect(plain(effectiveErrors(ownMethod!))).toEqual([
      { code: "already_exists", condition: "The thing exists." },
      { code: "not_found", condition: "The parent does not exist." },
      { code: "unauthenticated", condition: "No token." },
      { code: "permission_denied", condition: "The token lacks the scope things:write." },
    ]);
  });

  it("refuses a placeholder it does not know, and one the method has no value for", () => {
    const typo = thingsService([{ code: "permission_denied", condition: "Lacks {scope}." }], {
      Get: { scope: "things:read" },
    });
    expect(() => effectiveErrors(typo.methods[0]!)).toThrow(
      /test\.Things\.Get: \{scope\} .* not a placeholder/,
    );
    const unscoped = thingsService([{ code: "permission_denied", condition: "Lacks {required_scope}." }], {
      Get: {},
    });
    expect(() => effectiveErrors(unscoped.methods[0]!)).toThrow(/test\.Things\.Get: \{required_scope\}/);
  });
});

describe("the errors of each method of the API", () => {
  for (const method of services.flatMap((service) => service.methods)) {
    const name = `${method.parent.name}.${method.name}`;

    it(`${name}: its own errors as declared, then each shared code it does not declare, once`, () => {
      const effective = effectiveErrors(method);
      const own = declaredErrors(method);
      expect(effective.slice(0, own.length)).toEqual(own);
      const ownCodes = new Set(own.map((error) => error.code));
      const sharedCodes = sharedErrors(method.parent).map((error) => error.code);
      expect(effective.slice(own.length).map((error) => error.code)).toEqual(
        sharedCodes.filter((code) => !ownCodes.has(code)),
      );
      // What a token without the scope is told names the method's scope, braces filled in.
      expect(effective.find((error) => error.code === "permission_denied")?.condition).toContain(
        requiredScope(method),
      );
      expect(effective.filter((error) => /\{[a-z_]+\}/.test(error.condition))).toEqual([]);
    });
  }

  it("share authentication, scope, rate-limit and internal errors in every service", () => {
    for (const service of services) {
      expect(
        sharedErrors(service).map((error) => error.code),
        service.typeName,
      ).toEqual(
        expect.arrayContaining(["unauthenticated", "permission_denied", "resource_exhausted", "internal"]),
      );
    }
  });
});
