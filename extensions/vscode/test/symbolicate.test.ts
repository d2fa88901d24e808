import assert from "node:assert/strict";
import { test } from "node:test";

import type { SymbolicateResult, SymbolicatedFrame } from "../src/protocol";
import { frameLines, frameLinks, ignoredFoldingRanges, ignoredLabels, ignoredLines, linkColumns, summarize, unmappedLabels, withLineFragment } from "../src/logic/symbolicate";

function frame(raw: string, text: string, o: { source: string; line: number; character: number; uri: string | null; fn?: string } | null, ignored = false): SymbolicatedFrame {
  return {
    raw,
    text,
    generated: null,
    original:
      o === null ? null : { source: o.source, line: o.line, character: o.character, name: null, function: o.fn ?? null, functionSource: o.fn !== undefined ? "frame" : null },
    ignored,
    unresolved: o === null ? "native frame" : null,
    location: o === null || o.uri === null ? null : { uri: o.uri, range: { start: { line: o.line, character: o.character }, end: { line: o.line, character: o.character } } },
  };
}

// What sourcemap-ls answers for fixtures/traces/v8-node.txt (first frames; the rest are node internals).
const v8: SymbolicateResult = {
  text: [
    "TypeError: Cannot read properties of null (reading 'map')",
    "    at parseOrder (../../demo/src/orders.js:5:24)",
    "    at Array.map (<anonymous>)",
    "    at main (../../demo/src/index.js:12:22)",
    "    at Module._compile (node:internal/modules/cjs/loader:1521:14)",
    "",
  ].join("\n"),
  frames: [
    frame("    at e (v8/app.min.js:1:50)", "    at parseOrder (../../demo/src/orders.js:5:24)", { source: "../../demo/src/orders.js", line: 4, character: 23, uri: "file:///w/demo/src/orders.js", fn: "parseOrder" }),
    frame("    at Array.map (<anonymous>)", "    at Array.map (<anonymous>)", null),
    frame("    at d (v8/app.min.js:1:311)", "    at main (../../demo/src/index.js:12:22)", { source: "../../demo/src/index.js", line: 11, character: 21, uri: "file:///w/demo/src/index.js", fn: "main" }),
    frame("    at Module._compile (node:internal/modules/cjs/loader:1521:14)", "    at Module._compile (node:internal/modules/cjs/loader:1521:14)", null),
  ],
};

test("frames are found on their lines, in order", () => {
  assert.deepEqual(
    frameLines(v8).map((f) => f.line),
    [1, 2, 3, 4],
  );
});

test("each mapped frame links its source:line:column to the original location", () => {
  const links = frameLinks(v8);
  assert.equal(links.length, 2);
  const [a, b] = links;
  const line1 = v8.text.split("\n")[1] ?? "";
  const start = line1.indexOf("../../demo/src/orders.js:5:24");
  assert.deepEqual(a?.range, { start: { line: 1, character: start }, end: { line: 1, character: start + "../../demo/src/orders.js:5:24".length } });
  assert.equal(line1.slice(a?.range.start.character, a?.range.end.character), "../../demo/src/orders.js:5:24");
  assert.equal(a?.targetWithFragment, "file:///w/demo/src/orders.js#L5,24");
  assert.equal(a?.tooltip, "Open ../../demo/src/orders.js:5:24 (parseOrder)");
  assert.equal(b?.range.start.line, 3);
  assert.equal(b?.targetWithFragment, "file:///w/demo/src/index.js#L12,22");
});

test("repeated identical frames pair with successive lines", () => {
  const t = "    at f (a.js:1:1)\n    at f (a.js:1:1)\n";
  const f = frame("x", "    at f (a.js:1:1)", { source: "a.js", line: 0, character: 0, uri: "file:///a.js" });
  const r: SymbolicateResult = { text: t, frames: [f, f] };
  assert.deepEqual(frameLinks(r).map((l) => l.range.start.line), [0, 1]);
});

test("a frame missing from the text is skipped, the rest still pair", () => {
  const r: SymbolicateResult = {
    text: "    at g (b.js:2:3)\n",
    frames: [
      frame("x", "    at f (a.js:1:1)", { source: "a.js", line: 0, character: 0, uri: "file:///a.js" }),
      frame("y", "    at g (b.js:2:3)", { source: "b.js", line: 1, character: 2, uri: "file:///b.js" }),
    ],
  };
  assert.deepEqual(frameLinks(r).map((l) => [l.range.start.line, l.target.uri]), [[0, "file:///b.js"]]);
});

test("link columns fall back to the parentheses, then the line", () => {
  const f = frame("x", "", { source: "webpack:///x.js", line: 9, character: 0, uri: "file:///x.js" });
  assert.deepEqual(linkColumns("    at h (somewhere else)", f), { start: 10, end: 24 });
  assert.deepEqual(linkColumns("    h@x", f), { start: 4, end: 7 });
  // `source:line` printed without a column (Firefox style `file:line`) still links the part that is there.
  assert.deepEqual(linkColumns("h@webpack:///x.js:10", f), { start: 2, end: 20 });
});

test("sourcemap-source targets keep their query and get the fragment", () => {
  assert.equal(
    withLineFragment("sourcemap-source:///r.js?map=file%3A/w/i.map&source=2", 0, 0),
    "sourcemap-source:///r.js?map=file%3A/w/i.map&source=2#L1,1",
  );
  assert.equal(withLineFragment("file:///a.js#L9", 1, 1), "file:///a.js#L2,2");
});

test("ignore-listed frames are dimmed, and runs of two or more fold", () => {
  const lib = (n: number): SymbolicatedFrame =>
    frame(`r${n}`, `    at lib${n} (node_modules/react/cjs/react.production.js:${n}:1)`, { source: "node_modules/react/cjs/react.production.js", line: n - 1, character: 0, uri: null }, true);
  const app = frame("a", "    at App (src/App.js:4:17)", { source: "src/App.js", line: 3, character: 16, uri: "file:///w/src/App.js" });
  const r: SymbolicateResult = {
    text: ["Error: boom", app.text, lib(1).text, lib(2).text, lib(3).text, app.text, lib(4).text, ""].join("\n"),
    frames: [app, lib(1), lib(2), lib(3), app, lib(4)],
  };
  assert.deepEqual(ignoredLines(r), [2, 3, 4, 6]);
  assert.deepEqual(ignoredFoldingRanges(r), [{ start: 2, end: 4 }]);
  assert.deepEqual(ignoredLabels(r), [
    { line: 2, label: "  ignore-listed (+2 folded)" },
    { line: 3, label: "  ignore-listed" },
    { line: 4, label: "  ignore-listed" },
    { line: 6, label: "  ignore-listed" },
  ]);
  assert.deepEqual(summarize(r), { frames: 6, mapped: 6, ignored: 4, unresolved: 0 });
  assert.deepEqual(summarize(v8), { frames: 4, mapped: 2, ignored: 0, unresolved: 2 });
});

test("frames that stayed as printed are labelled with why", () => {
  assert.deepEqual(unmappedLabels(v8), [
    { line: 2, label: "  native (no map)", reason: "native frame" },
    { line: 4, label: "  native (no map)", reason: "native frame" },
  ]);
  const missing: SymbolicateResult = {
    text: "Error\n    at x (bundle.js:9:9)\n",
    frames: [{ ...frame("    at x (bundle.js:9:9)", "    at x (bundle.js:9:9)", null), unresolved: "no mapping at this position" }],
  };
  assert.deepEqual(unmappedLabels(missing), [{ line: 1, label: "  not mapped: no mapping at this position", reason: "no mapping at this position" }]);
});
