import type { Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import type { Protocol } from "./connection.js";

/** A browser transport of the chosen protocol that sends the bearer token with every call. */
export function createTransport(protocol: Protocol, baseUrl: string, token: string): Transport {
  const bearer: Interceptor = (next) => (req) => {
    if (token !== "") req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
  const options = { baseUrl, interceptors: [bearer] };
  return protocol === "grpc-web" ? createGrpcWebTransport(options) : createConnectTransport(options);
}
