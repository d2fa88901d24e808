import assert from "node:assert/strict";
import { test } from "node:test";

import { explainFoundBy, findSourceMappingUrl, formatBytes, formatMapInfo, shortenDataUrl } from "../src/logic/mapInfo";

test("the last sourceMappingURL comment wins", () => {
  assert.equal(findSourceMappingUrl('__r(0);\n//# sourceMappingURL=index.bundle.map\n'), "index.bundle.map");
  assert.equal(findSourceMappingUrl("//@ sourceMappingURL=old.map\n//# sourceMappingURL=new.map"), "new.map");
  assert.equal(findSourceMappingUrl("/*# sourceMappingURL=a.css.map */"), "a.css.map");
  assert.equal(findSourceMappingUrl("var a = 1;"), undefined);
});

test("sizes and inline maps", () => {
  assert.equal(formatBytes(1005), "1005 B");
  assert.equal(formatBytes(1536), "1.50 KiB");
  assert.equal(formatBytes(150 * 1024 * 1024), "150.0 MiB");
  assert.match(shortenDataUrl("data:application/json;base64," + "A".repeat(1000)), /^data:application\/json;base64,… \(inline map, 1029 chars\)$/);
});

test("the report lists the modules and their sources", () => {
  const r = formatMapInfo({
    bundle: "index.bundle",
    sourceMappingUrl: "index.bundle.map",
    mapFile: "index.bundle.map",
    mapBytes: 1005,
    cursor: "/home/ci/build/MyApp/src/App.js:4:17 (add)",
    modules: [
      { name: "/src/utils/math.js", detail: "lines 2–2", startLine: 1 },
      { name: "/src/App.js", detail: "lines 3–3", startLine: 2 },
      { name: "/src/App.js (+1)", startLine: 3 },
    ],
    diagnostics: [],
  });
  assert.match(r, /^Bundle: index\.bundle$/m);
  assert.match(r, /^Map file: index\.bundle\.map \(1005 B on disk\)$/m);
  assert.match(r, /^At the cursor: \/home\/ci\/build\/MyApp\/src\/App\.js:4:17 \(add\)$/m);
  assert.match(r, /^Modules \(from the server's outline\): 3$/m);
  assert.match(r, /^ {2}\/src\/App\.js {2}\[lines 3–3\]$/m);
  assert.match(r, /^Sources named by those modules: 2$/m);
  assert.doesNotMatch(r, /Diagnostics:/);
  assert.doesNotMatch(r, /Map used by the server/);
});

test("the server's map info: the map, how it was found, the index memory, every source", () => {
  const r = formatMapInfo({
    bundle: "index.bundle",
    server: {
      map: "/w/index.bundle.map",
      foundBy: "sourceMappingURL",
      mapBytes: 2048,
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
    },
  });
  assert.match(r, /^Map used by the server: \/w\/index\.bundle\.map — found by sourceMappingURL$/m);
  assert.match(r, /^ {2}2\.00 KiB, index map, 3 sections, 2 sources, 5 names$/m);
  assert.match(r, /^ {2}index memory: 356 B for 300 B of mappings \(2 of 3 sections indexed so far, 40 segments\)$/m);
  assert.match(r, /^ {2}react\.js {2}\[ignore-listed\]$/m);
  assert.match(r, /^ {2}\/src\/App\.js {2}→ file:\/\/\/w\/src\/App\.js$/m);
});

test("a server error is shown", () => {
  const r = formatMapInfo({ bundle: "x.js", serverError: "no sourceMappingURL, no x.js.map", diagnostics: ["line 1: bad"] });
  assert.match(r, /^sourceMappingURL: \(none in the bundle's text\)$/m);
  assert.match(r, /^Server: no sourceMappingURL/m);
  assert.match(r, /^Diagnostics:\n {2}line 1: bad$/m);
  // Without a map: what to do.
  assert.match(r, /^No source map is in use for this bundle\. What to do:$/m);
  assert.match(r, /Attach Source Map…/);
  assert.match(r, /put x\.js\.map beside it/);
});

test("how the map was found is explained", () => {
  assert.match(explainFoundBy("maps setting"), /sourcemap\.maps setting names it/);
  assert.match(explainFoundBy("sidecar"), /no sourceMappingURL comment/);
  assert.equal(explainFoundBy("something new"), "something new");
});
