/**
 * The contract gate: the proto (buf breaking) and the REST surface (the OpenAPI document) of the
 * Folio API compared with the baseline recorded in proto/baseline/, which only an explicit
 * re-recording moves.
 */
export {
  BASELINE_DOCUMENT,
  BASELINE_IMAGE,
  type ContractPaths,
  type ContractReport,
  checkContract,
  currentRestDocument,
  passes,
  recordBaseline,
} from "./gate.ts";
export { API_PATH, protoBreakingChanges } from "./proto-check.ts";
export { formatReport, UPDATE_COMMAND } from "./report.ts";
export { compareRest, type RestComparison, restBreakingChanges } from "./rest-check.ts";
export { restDocumentOf } from "./rest-document.ts";
