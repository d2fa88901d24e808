import assert from "node:assert/strict";
import { test } from "node:test";

import {
  escapeGlob,
  folderDistance,
  isLoopbackUrl,
  mapsEntry,
  nearbyMaps,
  offersAttach,
  relativeInside,
  withEntry,
} from "../src/logic/attach";
import { describeBuildTime, newestFirst } from "../src/logic/buildTime";

test("a bundle inside the folder is attached by its relative path, the map too", () => {
  assert.deepEqual(mapsEntry("/ws", "/ws/dist/app.js", "/ws/maps/app.js.map"), { glob: "dist/app.js", map: "maps/app.js.map" });
});

test("a map outside the folder, or a bundle outside it, keeps absolute paths", () => {
  assert.deepEqual(mapsEntry("/ws", "/ws/dist/app.js", "/builds/app.js.map"), { glob: "dist/app.js", map: "/builds/app.js.map" });
  assert.deepEqual(mapsEntry("/ws", "/tmp/app.js", "/ws/app.js.map"), { glob: "/tmp/app.js", map: "/ws/app.js.map" });
  assert.deepEqual(mapsEntry(undefined, "/tmp/app.js", "/tmp/app.js.map"), { glob: "/tmp/app.js", map: "/tmp/app.js.map" });
});

test("glob characters in names match only themselves", () => {
  assert.equal(escapeGlob("dist/[id]/a*b?.js"), "dist/[[]id[]]/a[*]b[?].js");
  assert.equal(mapsEntry("/ws", "/ws/out/{x}.js", "/ws/out/x.map").glob, "out/[{]x[}].js");
});

test("loopback URLs are kept as they are; others are not URLs the server fetches", () => {
  assert.deepEqual(mapsEntry("/ws", "/ws/index.bundle", "http://localhost:8081/index.map?platform=ios"), {
    glob: "index.bundle",
    map: "http://localhost:8081/index.map?platform=ios",
  });
  assert.ok(isLoopbackUrl("http://127.0.0.1:8081/a.map"));
  assert.ok(!isLoopbackUrl("https://localhost/a.map"));
  assert.ok(!isLoopbackUrl("http://example.com/a.map"));
  assert.ok(!isLoopbackUrl("maps/a.map"));
});

test("relativeInside refuses paths outside the folder", () => {
  assert.equal(relativeInside("/ws", "/ws/a/b.js"), "a/b.js");
  assert.equal(relativeInside("/ws", "/wsx/b.js"), undefined);
  assert.equal(relativeInside("/ws", "/ws"), undefined);
});

test("attaching again replaces the bundle's entry and keeps the others", () => {
  const next = withEntry({ "a.js": "a.map", "b.js": "old.map" }, { glob: "b.js", map: "new.map" });
  assert.deepEqual(next, { "a.js": "a.map", "b.js": "new.map" });
});

test("build times: the stamp and the age; newest first", () => {
  const now = new Date(2026, 10, 30, 17, 0).getTime();
  assert.equal(describeBuildTime(new Date(2026, 10, 30, 14, 2).getTime(), now), "built 2026-11-30 14:02 · 2 hours ago");
  assert.equal(describeBuildTime(now - 30_000, now).endsWith("just now"), true);
  assert.equal(describeBuildTime(now - 86400_000 * 3, now).endsWith("3 days ago"), true);
  const sorted = newestFirst([{ n: "a", mtimeMs: 1 }, { n: "b", mtimeMs: undefined }, { n: "c", mtimeMs: 5 }]);
  assert.deepEqual(sorted.map((x) => x.n), ["c", "a", "b"]);
});

test("the quick fix is offered on a missing map and on a map that does not fit, whatever the code's form", () => {
  assert.equal(offersAttach("no-source-map"), true);
  assert.equal(offersAttach({ value: "map-mismatch" }), true);
  assert.equal(offersAttach("bad-mapping"), false);
  assert.equal(offersAttach(42), false);
  assert.equal(offersAttach(undefined), false);
});

test("maps named like the bundle come first, then the nearest folders, then by path; at most the limit", () => {
  assert.equal(folderDistance("/ws/dist/a.map", "/ws/dist/app.js"), 0);
  assert.equal(folderDistance("/ws/maps/a.map", "/ws/dist/app.js"), 2);
  const maps = ["/ws/other/z.map", "/ws/maps/app.js.map", "/ws/dist/vendor.map", "/ws/dist/app.map", "/ws/a/b/c/app.js.map"];
  assert.deepEqual(nearbyMaps("/ws/dist/app.js", maps), [
    "/ws/dist/app.map",
    "/ws/maps/app.js.map",
    "/ws/a/b/c/app.js.map",
    "/ws/dist/vendor.map",
    "/ws/other/z.map",
  ]);
  assert.deepEqual(nearbyMaps("/ws/dist/app.js", maps, 2), ["/ws/dist/app.map", "/ws/maps/app.js.map"]);
});
