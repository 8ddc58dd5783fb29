import type { Interceptor } from "@connectrpc/connect";
import { invalidArgument } from "@folio/googleapis";
import type { RequestValidation } from "../services/request-validation.js";

/**
 * The one validation step of every API call, whatever its protocol (REST reaches it through the
 * transcoder): a request that breaks any of its rules is `invalid_argument`, with a
 * google.rpc.BadRequest naming every field at fault by its JSON name. It runs after
 * authentication, scope and rate limit, so an unauthorised caller learns nothing of the rules and
 * a flood of bad requests is counted.
 */
export function createValidationInterceptor(validation: RequestValidation): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      const violations = validation.check(req.method, req.message, req.header);
      if (violations.length > 0) throw invalidArgument(violations);
    }
    return next(req);
  };
}
