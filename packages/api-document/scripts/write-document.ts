// Writes dist/openapi.json: the document a development-mode server serves at /api/v1/openapi.json,
// from which @folio/client generates its REST types (openapi-typescript) at build.
import { writeFileSync } from "node:fs";
import { createFolioOpenApiDocument } from "../dist/index.js";

const document = createFolioOpenApiDocument({ mode: "development" });
writeFileSync(new URL("../dist/openapi.json", import.meta.url), `${JSON.stringify(document, null, 2)}\n`);
