import { folioVitestConfig } from "@folio/test-support/vitest";

export default folioVitestConfig();
