// The per-request steps of Folio's packages that their public exports leave out, from the packages'
// builds: a package exports only its entry point, and importing its sources would put files outside
// this app's rootDir into the app's typecheck.
export { isCanonicalCompactJws } from "../../../../packages/auth/dist/compact-jws.js";
export {
  parseFieldSelection,
  takeFieldsParameter,
} from "../../../../packages/http-transcoder/dist/partial-response.js";
export { isJsonContentType } from "../../../../packages/http-transcoder/dist/request-body.js";
export { createRequestMessageReader } from "../../../../packages/http-transcoder/dist/request-message.js";
export { createRouteTable } from "../../../../packages/http-transcoder/dist/route-table.js";
export { matchesIfNoneMatch } from "../../../../packages/http-transcoder/dist/send-body.js";
