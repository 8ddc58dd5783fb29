import { folioVitestConfig } from "./src/vitest.ts";

export default folioVitestConfig();
