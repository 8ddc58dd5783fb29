// What the proto's request rules (protovalidate, as the validation step runs them) cost per
// request, in microseconds of CPU, with protovalidate's default engine (RE2 in JavaScript for
// every pattern) and with Folio's (linearRegexMatch of @folio/proto: the platform's engine for
// single-bracket patterns): a typical CreateFolder and ListProjects, and a name padded to the
// body limit (1 MiB). No server, no database.
//
// Usage (from the repository root, after `pnpm exec turbo run build --filter=@folio/proto`):
//   node apps/server/bench/request-validation.bench.ts [--iterations 20000]

import { parseArgs } from "node:util";
import { create, type DescMessage, type Message } from "@bufbuild/protobuf";
import { createValidator, type Validator } from "@bufbuild/protovalidate";
import { CreateFolderRequestSchema, ListProjectsRequestSchema, linearRegexMatch } from "@folio/proto";

const { values } = parseArgs({ options: { iterations: { type: "string", default: "20000" } } });
const iterations = Number(values.iterations);

const cases: [string, DescMessage, Message, number][] = [
  [
    "CreateFolder, every field",
    CreateFolderRequestSchema,
    create(CreateFolderRequestSchema, {
      name: "Invoices 2026",
      color: "#1e90ff",
      parentId: "5b3c0f5e-6d0b-4a57-9a43-2f1c7e0b9d21",
      requestId: "5b3c0f5e-6d0b-4a57-9a43-2f1c7e0b9d21",
    }),
    iterations,
  ],
  [
    "ListProjects, a filter",
    ListProjectsRequestSchema,
    create(ListProjectsRequestSchema, { pageSize: 10, city: "Lyon" }),
    iterations,
  ],
  [
    "CreateFolder, a 1 MiB name",
    CreateFolderRequestSchema,
    create(CreateFolderRequestSchema, { name: `${" ".repeat(1 << 20)}a` }),
    5,
  ],
];

/** Microseconds per validation of `request`, warm. */
function measure(validator: Validator, schema: DescMessage, request: Message, n: number): number {
  for (let i = 0; i < Math.min(n, 2000); i++) validator.validate(schema, request);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) validator.validate(schema, request);
  return Number(process.hrtime.bigint() - start) / n / 1000;
}

const re2 = createValidator();
const folio = createValidator({ regexMatch: linearRegexMatch });
console.log(`node ${process.version}, ${iterations} iterations; microseconds per request`);
console.log("request                       RE2 (default)   Folio's matcher");
for (const [label, schema, request, n] of cases) {
  const [a, b] = [measure(re2, schema, request, n), measure(folio, schema, request, n)];
  console.log(`${label.padEnd(30)}${a.toFixed(1).padStart(13)}${b.toFixed(1).padStart(18)}`);
}
