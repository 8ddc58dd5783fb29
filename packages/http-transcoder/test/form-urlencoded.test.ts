import { describe, expect, it } from "vitest";
import { parseFormUrlencoded } from "../src/form-urlencoded.js";

describe("parseFormUrlencoded", () => {
  it.each([
    { it: "reads nothing from an empty query", query: "", pairs: [] },
    {
      it: "skips empty pairs",
      query: "&&a=1&&b=2&",
      pairs: [
        ["a", "1"],
        ["b", "2"],
      ],
    },
    { it: "skips one leading ?", query: "?a=1", pairs: [["a", "1"]] },
    { it: "keeps a second leading ? in the name", query: "??a", pairs: [["?a", ""]] },
    {
      it: "gives a pair without = the value ''",
      query: "a&b&a",
      pairs: [
        ["a", ""],
        ["b", ""],
        ["a", ""],
      ],
    },
    {
      it: "ends the name at the first =",
      query: "a=b=c&==&=x&y=",
      pairs: [
        ["a", "b=c"],
        ["", "="],
        ["", "x"],
        ["y", ""],
      ],
    },
    {
      it: "reads + as a space, in names and values",
      query: "a+b=c+d&+",
      pairs: [
        ["a b", "c d"],
        [" ", ""],
      ],
    },
    { it: "reads %2B as a plus and %20 as a space", query: "a=C%2B%2B%20x", pairs: [["a", "C++ x"]] },
    { it: "decodes escapes of UTF-8", query: "n%C3%A9=%E2%82%AC", pairs: [["né", "€"]] },
    { it: "keeps other characters as they are", query: "a=é/?:@", pairs: [["a", "é/?:@"]] },
    {
      it: "keeps a % without two hexadecimal digits after it",
      query: "a=%&b=%zz&c=%4&d=100%",
      pairs: [
        ["a", "%"],
        ["b", "%zz"],
        ["c", "%4"],
        ["d", "100%"],
      ],
    },
    {
      it: "decodes the complete escapes beside a % without digits",
      query: "a=%41%&b=%zz%42",
      pairs: [
        ["a", "A%"],
        ["b", "%zzB"],
      ],
    },
    {
      it: "reads escapes that are not UTF-8 as U+FFFD",
      query: "a=%FF&b=%E2%82&c=x%C3",
      pairs: [
        ["a", "\uFFFD"],
        ["b", "\uFFFD"],
        ["c", "x\uFFFD"],
      ],
    },
    {
      it: "reads a lone surrogate as U+FFFD",
      query: "a=\uD800&\uDC00",
      pairs: [
        ["a", "\uFFFD"],
        ["\uFFFD", ""],
      ],
    },
  ])("$it", ({ query, pairs }) => {
    expect(parseFormUrlencoded(query)).toEqual(pairs);
  });

  it("reads every query as URLSearchParams does", () => {
    // Queries built from the characters the parser treats apart, and some it does not.
    const alphabet = [
      "a",
      "=",
      "&",
      "+",
      "%",
      "2",
      "B",
      "c",
      "C",
      "3",
      "A",
      "9",
      "F",
      "?",
      "é",
      "\uD800",
      " ",
    ];
    let seed = 1;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 20_000; i++) {
      const length = Math.floor(random() * 16);
      const query = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      expect(parseFormUrlencoded(query), JSON.stringify(query)).toEqual([...new URLSearchParams(query)]);
    }
  });
});
