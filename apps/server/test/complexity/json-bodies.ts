// CreateFolder request bodies in JSON, each of about a given number of characters, built to make
// JSON decoding slow: the inputs of the complexity tests of the JSON paths (Connect, REST).

import type { InputFamily } from "./costliest-input.js";
import { repeatTo } from "./hostile-names.js";

/** `count` copies of `item(i)` joined by commas. */
function list(count: number, item: (i: number) => string): string {
  return Array.from({ length: count }, (_, i) => item(i)).join(",");
}

/** JSON texts of about `size` characters that make a decoder work hardest. */
export const JSON_BODIES: readonly InputFamily<string>[] = [
  { label: "a long name", build: (size) => JSON.stringify({ name: repeatTo("a", size) }) },
  { label: "a name of \\u escapes", build: (size) => `{"name":"${repeatTo("\\u0301", size)}"}` },
  {
    label: "a name of surrogate-pair escapes",
    build: (size) => `{"name":"${repeatTo("\\ud83d\\ude00", size)}"}`,
  },
  { label: "a name of lone-surrogate escapes", build: (size) => `{"name":"${repeatTo("\\udc00", size)}"}` },
  { label: "a name of short escapes", build: (size) => `{"name":"${repeatTo('\\n\\t\\"\\\\\\/', size)}"}` },
  {
    label: "a name of unordered combining marks",
    build: (size) =>
      JSON.stringify({ name: `a${repeatTo("\u0301", size >> 2)}${repeatTo("\u0316", size >> 2)}` }),
  },
  {
    label: "deeply nested arrays under an unknown key",
    build: (size) => `{"name":"a","x":${"[".repeat(size >> 1)}${"]".repeat(size >> 1)}}`,
  },
  {
    label: "deeply nested objects as the name",
    build: (size) => `{"name":${'{"a":'.repeat(Math.floor(size / 6))}1${"}".repeat(Math.floor(size / 6))}}`,
  },
  {
    label: "deeply nested objects under an unknown key",
    build: (size) =>
      `{"name":"a","x":${'{"a":'.repeat(Math.floor(size / 6))}1${"}".repeat(Math.floor(size / 6))}}`,
  },
  {
    label: "many unknown keys",
    build: (size) => `{"name":"a",${list(size >> 4, (i) => `"k${i.toString(36)}":0`)}}`,
  },
  {
    label: "many unknown keys written with escapes",
    build: (size) => `{${list(size >> 4, (i) => `"\\u006b${i.toString(36)}":0`)}}`,
  },
  {
    label: "many keys in an object as the name",
    build: (size) => `{"name":{${list(size >> 4, (i) => `"k${i.toString(36)}":0`)}}}`,
  },
  { label: "the name key repeated", build: (size) => `{${repeatTo('"name":"a",', size)}"name":"a"}` },
  { label: "a long array as the name", build: (size) => `{"name":[${repeatTo('"a",', size)}"a"]}` },
  {
    label: "a long number as the request id",
    build: (size) => `{"name":"a","requestId":${repeatTo("1", size)}}`,
  },
  {
    label: "long white space between the tokens",
    build: (size) => `{ "name" ${repeatTo(" \t\r\n", size)}: "a" }`,
  },
];
