import { createFolioOpenApiDocument } from "@folio/api-document";
import type { AuthConfig } from "../env.js";
import { type ApiDocsHandler, createApiDocsHandler } from "./docs-handler.js";
import { bundledScalarScript } from "./docs-script.js";

/**
 * The OpenAPI document and its docs page. The document is built on the first request for it, not
 * at every start (tens of milliseconds); the page's script is the build's copy when there is one.
 */
export function createApiDocs(auth: AuthConfig): ApiDocsHandler {
  return createApiDocsHandler({
    document: () => createFolioOpenApiDocument(auth),
    scalarScript: bundledScalarScript(),
  });
}
