import {
  clone,
  create,
  type DescMethod,
  type DescService,
  isMessage,
  type Message,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import type { CallOptions, Protocol, ServiceClient } from "./client-types.js";
import { FolioError } from "./errors.js";
import { fillRequestId } from "./method-policy.js";
import { pageFields, pageItems } from "./pages.js";

/** Sends one call of a unary method over a protocol; the request is a message of the method's input. */
export type UnaryCaller = (method: DescMethod, request: Message, options: CallOptions) => Promise<Message>;

/** Names of a client's own members, which no method may take. */
const OWN_MEMBERS = new Set(["protocol", "paged", "call"]);

/**
 * A client of `services`: each unary method under its lowerCamelCase name, sent by `caller`, and
 * for each paged one an item iterator under `paged`. Throws when two methods share a name.
 */
export function buildServiceClient(
  services: readonly DescService[],
  protocol: Protocol,
  caller: UnaryCaller,
): ServiceClient<DescService> {
  const call = (method: DescMethod, request: unknown = {}, options: CallOptions = {}) =>
    typed(() => caller(method, prepareRequest(method, request), options));
  const methods: Record<string, unknown> = {};
  const paged: Record<string, unknown> = {};
  const owners = new Map<string, DescMethod>();
  for (const method of services.flatMap((service) => service.methods)) {
    if (method.methodKind !== "unary") continue;
    const name = method.localName;
    const owner = owners.get(name);
    if (owner !== undefined || OWN_MEMBERS.has(name)) {
      const taken = owner === undefined ? "a member of the client" : `${owner.parent.typeName}.${owner.name}`;
      throw new Error(
        `${method.parent.typeName}.${method.name} cannot be client.${name}: ${taken} has that name`,
      );
    }
    owners.set(name, method);
    methods[name] = (request?: unknown, options?: CallOptions) => call(method, request, options);
    const fields = pageFields(method);
    if (fields !== undefined) {
      paged[name] = (request?: unknown, options?: CallOptions) =>
        pageItems(method, fields, prepareRequest(method, request), (page) => call(method, page, options));
    }
  }
  // The members are made from the descriptors that ServiceClient's types are read from.
  return { ...methods, protocol, paged, call } as ServiceClient<DescService>;
}

/**
 * The request message of a call: a copy of the caller's message or one made from its fields,
 * with its idempotency key made now, once for every attempt, when the method takes one.
 */
function prepareRequest(method: DescMethod, request: unknown): Message {
  const message = isMessage(request, method.input)
    ? clone(method.input, request)
    : create(method.input, request as MessageInitShape<typeof method.input>);
  fillRequestId(method, message);
  return message;
}

/**
 * Runs a call, its errors as FolioErrors: the transports raise some (a deadline, a network failure)
 * outside the interceptors.
 */
async function typed<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (reason) {
    throw FolioError.from(reason);
  }
}
