import assert from "node:assert/strict";
import { test } from "node:test";

import { findSourceMappingUrl, formatBytes, formatMapInfo, shortenDataUrl } from "../src/logic/mapInfo";

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

test("the report lists the modules and their sources, and says what the server cannot tell", () => {
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
  assert.match(r, /sourcemap\/mapInfo/);
  assert.doesNotMatch(r, /Diagnostics:/);
});

test("a server error is shown", () => {
  const r = formatMapInfo({ bundle: "x.js", serverError: "no sourceMappingURL, no x.js.map", diagnostics: ["line 1: bad"] });
  assert.match(r, /^sourceMappingURL: \(none in the bundle's text\)$/m);
  assert.match(r, /^Server: no sourceMappingURL/m);
  assert.match(r, /^Diagnostics:\n {2}line 1: bad$/m);
});
