import type { OpenApiDocument, OperationObject, PathItemMethod } from "./openapi-types.js";

/** Every HTTP method a Path Item Object has a field for, in the order OpenAPI lists them. */
export const PATH_ITEM_METHODS: readonly PathItemMethod[] = [
  "get",
  "put",
  "post",
  "delete",
  "options",
  "head",
  "patch",
  "trace",
];

const methodNames: ReadonlySet<string> = new Set(PATH_ITEM_METHODS);

/** Whether `method` (lower case) is one a Path Item Object has a field for. */
export function isPathItemMethod(method: string): method is PathItemMethod {
  return methodNames.has(method);
}

/** Each operation of `document` with its path and method, in the document's order. */
export function documentOperations(
  document: OpenApiDocument,
): { path: string; method: PathItemMethod; operation: OperationObject }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    PATH_ITEM_METHODS.flatMap((method) => {
      const operation = item?.[method];
      return operation === undefined ? [] : [{ path, method, operation }];
    }),
  );
}
