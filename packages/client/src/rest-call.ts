import type { DescMethod, JsonValue, Message } from "@bufbuild/protobuf";
import type { TokenSource } from "./auth.js";
import type { CallOptions } from "./client-types.js";
import { folioErrorFromRest } from "./errors.js";
import { mayRetry } from "./method-policy.js";
import { nextPageToken, policyFetch, type RestOptions } from "./rest.js";
import { restBinding, restRequest, restResponse } from "./rest-binding.js";
import type { UnaryCaller } from "./service-client.js";

/**
 * Calls methods over REST by their `google.api.http` rules, under the client's policy: the token,
 * retries by the method's rule (see method-policy.ts) within the call's deadline, and a REST
 * error envelope read into the same FolioError an RPC gives.
 */
export function restCaller(options: RestOptions & TokenSource): UnaryCaller {
  const origin = options.baseUrl.replace(/\/+$/, "");
  return async (method: DescMethod, message: Message, callOptions: CallOptions): Promise<Message> => {
    const binding = restBinding(method);
    const { path, body } = restRequest(method, binding, message);
    const deadline = callOptions.timeoutMs === undefined ? undefined : Date.now() + callOptions.timeoutMs;
    const signals = [
      callOptions.signal,
      deadline === undefined ? undefined : AbortSignal.timeout(deadline - Date.now()),
    ];
    const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
    const request = new Request(`${origin}${path}`, {
      method: binding.verb,
      headers: {
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body }),
      ...(present.length === 0 ? {} : { signal: AbortSignal.any(present) }),
    });
    const fetchWithPolicy = policyFetch(options, { deadline, retryable: mayRetry(method, message) });
    const response = await fetchWithPolicy(request);
    const text = await response.text();
    let json: JsonValue | undefined;
    try {
      json = text === "" ? {} : (JSON.parse(text) as JsonValue);
    } catch {
      json = undefined;
    }
    if (!response.ok) throw folioErrorFromRest(response.status, response.headers, json);
    if (json === undefined) throw new Error(`the server's answer to ${binding.verb} ${path} is not JSON`);
    return restResponse(method, binding, json, nextPageToken(response.headers.get("link")));
  };
}
