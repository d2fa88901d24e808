import assert from "node:assert/strict";
import { test } from "node:test";

import { changeNeedsRestart, DEFAULT_MAX_MAP_BYTES, toServerSettings, traceSetting } from "../src/logic/settings";

const getter = (o: Record<string, unknown>) => (k: string) => o[k];

test("VS Code settings map to the server's object", () => {
  const s = toServerSettings(
    getter({
      pathOverrides: { "webpack:///./*": "${workspaceFolder}/*" },
      maps: { "dist/*.bundle": "maps/app.map" },
      maxMapBytes: 1048576,
      devServer: true,
      maxIndexBytes: 268435456,
      maxCacheBytes: 8388608,
      "server.path": "/x",
      "trace.server": "verbose",
    }),
  );
  assert.deepEqual(s, {
    pathOverrides: { "webpack:///./*": "${workspaceFolder}/*" },
    maps: { "dist/*.bundle": "maps/app.map" },
    maxMapBytes: 1048576,
    devServer: true,
    maxIndexBytes: 268435456,
    maxCacheBytes: 8388608,
  });
});

test("defaults, and mistyped values fall back to them", () => {
  const defaults = { maxIndexBytes: 0, maxCacheBytes: 0 };
  assert.deepEqual(toServerSettings(getter({})), {
    pathOverrides: {},
    maps: {},
    maxMapBytes: DEFAULT_MAX_MAP_BYTES,
    devServer: false,
    ...defaults,
  });
  const s = toServerSettings(
    getter({
      pathOverrides: ["a"],
      maps: { ok: "m.map", bad: 3, "": "x" },
      maxMapBytes: -1,
      devServer: "yes",
      maxIndexBytes: "1 GB",
      maxCacheBytes: -5,
    }),
  );
  assert.deepEqual(s, {
    pathOverrides: {},
    maps: { ok: "m.map" },
    maxMapBytes: DEFAULT_MAX_MAP_BYTES,
    devServer: false,
    ...defaults,
  });
  assert.equal(toServerSettings(getter({ maxMapBytes: 12.7 })).maxMapBytes, 12);
  assert.equal(toServerSettings(getter({ maxMapBytes: Infinity })).maxMapBytes, DEFAULT_MAX_MAP_BYTES);
});

test("trace level", () => {
  assert.equal(traceSetting(getter({ "trace.server": "messages" })), "messages");
  assert.equal(traceSetting(getter({ "trace.server": "loud" })), "off");
  assert.equal(traceSetting(getter({})), "off");
});

test("only a new server path restarts the server", () => {
  assert.equal(changeNeedsRestart((s) => s === "sourcemap.server.path"), true);
  assert.equal(changeNeedsRestart((s) => s === "sourcemap.maps"), false);
});
