import assert from "node:assert/strict";
import { test } from "node:test";

import { explainFoundBy, formatBytes, formatMapInfo, isLoaded } from "../src/logic/mapInfo";
import type { MapInfo, MapLookup } from "../src/protocol";

const lookup: MapLookup = {
  bundle: "/w/index.bundle",
  bundleBytes: 1005,
  sourceMappingUrl: "index.bundle.map",
  map: "/w/index.bundle.map",
  foundBy: "sourceMappingURL",
  mapBytes: 2048,
  problem: null,
  tried: [],
};

const loaded: MapInfo = {
  ...lookup,
  isIndexMap: true,
  sections: 3,
  sectionsIndexed: 2,
  segments: 40,
  mappingsBytes: 300,
  indexBytes: 356,
  names: 5,
  debugId: null,
  sources: [
    { url: "/src/App.js", uri: "file:///w/src/App.js", ignored: false },
    { url: "react.js", uri: null, ignored: true },
  ],
  fit: { verdict: "misfit", message: "stops fitting at line 2" },
};

const relative = (p: string): string => p.replace(/^\/w\//, "");

test("sizes", () => {
  assert.equal(formatBytes(1005), "1005 B");
  assert.equal(formatBytes(1536), "1.50 KiB");
  assert.equal(formatBytes(150 * 1024 * 1024), "150.0 MiB");
});

test("a loaded map: the bundle, its comment, the map with its size and how it was found, the index, every source", () => {
  const r = formatMapInfo({ document: "index.bundle", server: loaded, displayPath: relative });
  assert.match(r, /^Bundle: index\.bundle \(1005 B on disk\)$/m);
  assert.match(r, /^sourceMappingURL: index\.bundle\.map$/m);
  assert.match(r, /^Map: index\.bundle\.map \(2\.00 KiB on disk\) — found by sourceMappingURL$/m);
  assert.match(r, /^ {2}How: the bundle's \/\/# sourceMappingURL comment names this file\.$/m);
  assert.match(r, /^ {2}index map, 3 sections, 2 sources, 5 names$/m);
  assert.match(r, /^ {2}index memory: 356 B for 300 B of mappings \(2 of 3 sections indexed so far, 40 segments\)$/m);
  assert.match(r, /^ {2}Fits this bundle: NO\n {4}stops fitting at line 2$/m);
  assert.match(r, /^ {2}react\.js {2}\[ignore-listed\]$/m);
  assert.match(r, /^ {2}\/src\/App\.js {2}→ file:\/\/\/w\/src\/App\.js$/m);
  assert.doesNotMatch(r, /Looked for|What to do/);
});

test("an inline map and a fetched one have no file: their sizes say decoded or fetched", () => {
  const inline = formatMapInfo({
    document: "a.js",
    server: { ...loaded, sourceMappingUrl: "data:application/json;base64,… (inline map, 1029 chars)", map: null, foundBy: "data: URL", mapBytes: 770 },
  });
  assert.match(inline, /^sourceMappingURL: data:application\/json;base64,… \(inline map, 1029 chars\)$/m);
  assert.match(inline, /^Map: inline \(770 B decoded\) — found by data: URL$/m);
  const fetched = formatMapInfo({ document: "a.js", server: { ...loaded, map: null, foundBy: "maps setting (URL)", mapBytes: 4096 } });
  assert.match(fetched, /^Map: fetched \(4\.00 KiB\) — found by maps setting \(URL\)$/m);
});

test("no map: the server's problem, every place it looked in order, and what to do", () => {
  const r = formatMapInfo({
    document: "dist/x.js",
    server: {
      ...lookup,
      bundle: "/w/dist/x.js",
      bundleBytes: null,
      sourceMappingUrl: null,
      map: null,
      foundBy: null,
      mapBytes: null,
      problem: "no source map for x.js",
      tried: ["sourcemap.maps: no entry matches dist/x.js", "/w/dist/x.js.map: no such file"],
    },
    displayPath: relative,
    diagnostics: ["line 1: no source map"],
  });
  assert.match(r, /^Bundle: dist\/x\.js$/m);
  assert.match(r, /^sourceMappingURL: \(no comment in the bundle\)$/m);
  assert.match(r, /^Map: none\n {2}Why: no source map for x\.js$/m);
  assert.match(r, /^ {2}Looked for, in order:\n {4}1\. sourcemap\.maps: no entry matches dist\/x\.js\n {4}2\. \/w\/dist\/x\.js\.map: no such file$/m);
  assert.match(r, /^No source map is in use for this bundle\. What to do:$/m);
  assert.match(r, /put x\.js\.map beside it/);
  assert.match(r, /^Diagnostics:\n {2}line 1: no source map$/m);
  assert.doesNotMatch(r, /index memory|Sources of the map/);
});

test("a map found but not loaded: how it was found, why it is not usable", () => {
  const r = formatMapInfo({ document: "index.bundle", server: { ...lookup, problem: "index.bundle.map: expected value at line 1" } });
  assert.match(r, /^Map: \/w\/index\.bundle\.map \(2\.00 KiB on disk\) — found by sourceMappingURL\n {2}How: .*\n {2}Not usable: index\.bundle\.map: expected value at line 1$/m);
  assert.match(r, /What to do:/);
  assert.equal(isLoaded(lookup), false);
  assert.equal(isLoaded(loaded), true);
});

test("without the server: its error, the document, what to do; the modules and cursor as given", () => {
  const r = formatMapInfo({
    document: "index.bundle",
    serverError: "not running",
    cursor: "/home/ci/build/MyApp/src/App.js:4:17 (add)",
    modules: [
      { name: "/src/utils/math.js", detail: "lines 2–2", startLine: 1 },
      { name: "/src/App.js", detail: "lines 3–3", startLine: 2 },
      { name: "/src/App.js (+1)", startLine: 3 },
    ],
    diagnostics: [],
  });
  assert.match(r, /^Bundle: index\.bundle\nServer: not running$/m);
  assert.match(r, /^At the cursor: \/home\/ci\/build\/MyApp\/src\/App\.js:4:17 \(add\)$/m);
  assert.match(r, /^Modules \(from the server's outline\): 3$/m);
  assert.match(r, /^ {2}\/src\/App\.js {2}\[lines 3–3\]$/m);
  assert.match(r, /^Sources named by those modules: 2$/m);
  assert.doesNotMatch(r, /Diagnostics:|^Map:/m);
});

test("how the map was found is explained", () => {
  assert.match(explainFoundBy("maps setting"), /sourcemap\.maps setting names it/);
  assert.match(explainFoundBy("sidecar"), /no sourceMappingURL comment/);
  assert.equal(explainFoundBy("something new"), "something new");
});
