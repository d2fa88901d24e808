import assert from "node:assert/strict";
import { test } from "node:test";

import { Debouncer, formatStatus, isBundlePath, originalLabel, shortenSource } from "../src/logic/status";

test("status text is source:line:column with 1-based line and column", () => {
  const v = formatStatus({ source: "/home/ci/build/MyApp/src/App.js", uri: "file:///ws/src/App.js", line: 3, character: 16, name: "add" });
  assert.ok(v !== undefined);
  assert.equal(v.text, "$(file-symlink-file) /home/ci/build/MyApp/src/App.js:4:17");
  assert.match(v.tooltip, /Original position: \/home\/ci\/build\/MyApp\/src\/App\.js:4:17/);
  assert.match(v.tooltip, /Name: add/);
  assert.match(v.tooltip, /Click to open/);
});

test("a source resolved to a workspace file is shown by its workspace path; the map's string in the tooltip", () => {
  const v = formatStatus({ source: "/home/ci/build/MyApp/src/App.js", uri: "file:///ws/src/App.js", line: 3, character: 16, name: null }, "src/App.js");
  assert.equal(v?.text, "$(file-symlink-file) src/App.js:4:17");
  assert.match(v?.tooltip ?? "", /Original position: src\/App\.js:4:17/);
  assert.match(v?.tooltip ?? "", /Source in the map: \/home\/ci\/build\/MyApp\/src\/App\.js/);
});

test("no answer hides the item", () => {
  assert.equal(formatStatus(null), undefined);
  assert.equal(formatStatus(undefined), undefined);
});

test("no local source: the tooltip says so", () => {
  const v = formatStatus({ source: "webpack:///x.js", uri: null, line: 0, character: 0, name: null });
  assert.equal(v?.text, "$(file-symlink-file) webpack:///x.js:1:1");
  assert.match(v?.tooltip ?? "", /not available locally/);
  assert.doesNotMatch(v?.tooltip ?? "", /Name:/);
});

test("long sources are shortened from the left at a separator", () => {
  const long = "/home/ci/build/MyApp/node_modules/react-native/Libraries/Components/View/View.js";
  const s = shortenSource(long, 48);
  assert.ok(s.length <= 48, s);
  assert.ok(s.startsWith("…/"), s);
  assert.ok(s.endsWith("/Components/View/View.js"), s);
  assert.equal(shortenSource("src/a.js"), "src/a.js");
  assert.equal(originalLabel({ source: null, line: 1, character: 2 }), "(unnamed source):2:3");
});

test("bundle file names", () => {
  for (const f of ["/a/index.bundle", "/a/main.jsbundle", "/a/x.js", "/a/x.mjs", "/a/x.cjs", "/A/X.JS", "/a/dist/main.min.css"]) {
    assert.ok(isBundlePath(f), f);
  }
  for (const f of ["/a/x.map", "/a/x.ts", "/a/log.txt", "/a/x.json", "/a/src/main.scss"]) {
    assert.ok(!isBundlePath(f), f);
  }
});

test("the debouncer runs once after the last trigger", async () => {
  let n = 0;
  const d = new Debouncer(20, () => n++);
  d.trigger();
  d.trigger();
  d.trigger();
  assert.ok(d.pending);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(n, 1);
  assert.ok(!d.pending);
  d.trigger();
  d.cancel();
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(n, 1);
});
