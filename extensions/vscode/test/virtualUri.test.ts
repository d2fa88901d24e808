import assert from "node:assert/strict";
import { test } from "node:test";

import { encodeVirtualQuery, extensionOf, languageForExtension, virtualUriToProtocol } from "../src/logic/virtualUri";

test("a decoded sourcemap-source URI is written back with map= and source= readable", () => {
  // As VS Code's Uri holds the server's
  // sourcemap-source:///home/ci/build/MyApp/node_modules/react/cjs/react.production.js?map=file%3A/w/index.bundle.map&source=2
  const s = virtualUriToProtocol({
    scheme: "sourcemap-source",
    authority: "",
    path: "/home/ci/build/MyApp/node_modules/react/cjs/react.production.js",
    query: "map=file:/w/index.bundle.map&source=2",
    fragment: "",
  });
  assert.equal(s, "sourcemap-source:///home/ci/build/MyApp/node_modules/react/cjs/react.production.js?map=file%3A%2Fw%2Findex.bundle.map&source=2");
  const u = new URL(s);
  assert.equal(u.searchParams.get("map"), "file:/w/index.bundle.map");
  assert.equal(u.searchParams.get("source"), "2");
});

test("a map path holding & and = survives", () => {
  const q = encodeVirtualQuery("map=file:///w/a&b=c.map&source=10");
  const p = new URLSearchParams(q);
  assert.equal(p.get("map"), "file:///w/a&b=c.map");
  assert.equal(p.get("source"), "10");
});

test("paths with spaces, ?, # and non-ASCII are encoded", () => {
  const s = virtualUriToProtocol({ scheme: "sourcemap-source", authority: "", path: "/my app/é?#.js", query: "", fragment: "" });
  assert.equal(s, "sourcemap-source:///my%20app/%C3%A9%3F%23.js");
  assert.equal(decodeURIComponent(new URL(s).pathname), "/my app/é?#.js");
});

test("language by extension", () => {
  assert.equal(extensionOf("/a/b/react.production.js"), ".js");
  assert.equal(extensionOf("/a/b/App.TSX"), ".tsx");
  assert.equal(extensionOf("/a/.hidden"), "");
  assert.equal(extensionOf("/a/b/noext"), "");
  assert.equal(languageForExtension(".js"), "javascript");
  assert.equal(languageForExtension(".tsx"), "typescriptreact");
  assert.equal(languageForExtension(".zzz"), undefined);
});
