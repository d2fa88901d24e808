import assert from "node:assert/strict";
import { test } from "node:test";

import { bundledServerPath, expandSettingPath, resolveServerPath, type ServerPathInput } from "../src/logic/serverPath";

function input(over: Partial<ServerPathInput>, executables: string[]): ServerPathInput {
  const set = new Set(executables);
  return {
    env: {},
    setting: "",
    extensionPath: "/ext",
    platform: "linux",
    homeDir: "/home/u",
    workspaceFolder: "/ws",
    isExecutable: (f) => set.has(f),
    ...over,
  };
}

test("the environment variable wins over everything", () => {
  const r = resolveServerPath(
    input({ env: { SOURCEMAP_LS_PATH: "/opt/sm/sourcemap-ls", PATH: "/usr/bin" }, setting: "/s/sourcemap-ls" }, [
      "/opt/sm/sourcemap-ls",
      "/s/sourcemap-ls",
      "/ext/server/sourcemap-ls",
      "/usr/bin/sourcemap-ls",
    ]),
  );
  assert.deepEqual(r.ok && { path: r.path, source: r.source }, { path: "/opt/sm/sourcemap-ls", source: "env" });
});

test("a broken environment variable is an error naming it, not a fall-through", () => {
  const r = resolveServerPath(input({ env: { SOURCEMAP_LS_PATH: "/nope" } }, ["/ext/server/sourcemap-ls"]));
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.message : "", /SOURCEMAP_LS_PATH is set to "\/nope"/);
});

test("an empty environment variable is ignored", () => {
  const r = resolveServerPath(input({ env: { SOURCEMAP_LS_PATH: "  " } }, ["/ext/server/sourcemap-ls"]));
  assert.equal(r.ok && r.source, "bundled");
});

test("the setting comes second, with ~ and ${workspaceFolder} expanded", () => {
  let r = resolveServerPath(input({ setting: "~/bin/sourcemap-ls" }, ["/home/u/bin/sourcemap-ls", "/ext/server/sourcemap-ls"]));
  assert.deepEqual(r.ok && [r.path, r.source], ["/home/u/bin/sourcemap-ls", "setting"]);
  r = resolveServerPath(input({ setting: "${workspaceFolder}/target/debug/sourcemap-ls" }, ["/ws/target/debug/sourcemap-ls"]));
  assert.deepEqual(r.ok && [r.path, r.source], ["/ws/target/debug/sourcemap-ls", "setting"]);
  r = resolveServerPath(input({ setting: "target/release/sourcemap-ls" }, ["/ws/target/release/sourcemap-ls"]));
  assert.deepEqual(r.ok && r.path, "/ws/target/release/sourcemap-ls");
});

test("a bare command name in the setting is looked up on PATH", () => {
  const r = resolveServerPath(input({ setting: "sourcemap-ls-dev", env: { PATH: "/a:/b" } }, ["/b/sourcemap-ls-dev"]));
  assert.deepEqual(r.ok && [r.path, r.source], ["/b/sourcemap-ls-dev", "setting"]);
});

test("a setting naming no executable is an error with the fix", () => {
  const r = resolveServerPath(input({ setting: "/missing/sourcemap-ls" }, ["/ext/server/sourcemap-ls"]));
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.message : "", /sourcemap\.server\.path/);
  assert.deepEqual(r.tried, ["/missing/sourcemap-ls"]);
});

test("the bundled binary comes third, PATH last", () => {
  let r = resolveServerPath(input({ env: { PATH: "/usr/bin" } }, ["/ext/server/sourcemap-ls", "/usr/bin/sourcemap-ls"]));
  assert.deepEqual(r.ok && [r.path, r.source], ["/ext/server/sourcemap-ls", "bundled"]);
  r = resolveServerPath(input({ env: { PATH: "/usr/local/bin::/usr/bin" } }, ["/usr/bin/sourcemap-ls"]));
  assert.deepEqual(r.ok && [r.path, r.source], ["/usr/bin/sourcemap-ls", "path"]);
  assert.deepEqual(r.tried, ["/ext/server/sourcemap-ls", "/usr/local/bin/sourcemap-ls", "/usr/bin/sourcemap-ls"]);
});

test("nothing found: one message that says how to fix it", () => {
  const r = resolveServerPath(input({ env: { PATH: "/usr/bin" } }, []));
  assert.equal(r.ok, false);
  const m = !r.ok ? r.message : "";
  assert.match(m, /not found/);
  assert.match(m, /cargo build --release --bin sourcemap-ls/);
  assert.match(m, /sourcemap\.server\.path/);
  assert.match(m, /SOURCEMAP_LS_PATH/);
});

test("Windows: .exe names and PATHEXT", () => {
  assert.equal(bundledServerPath("C:\\ext", "win32"), "C:\\ext\\server\\sourcemap-ls.exe");
  const r = resolveServerPath(
    input({ platform: "win32", extensionPath: "C:\\ext", env: { Path: "C:\\tools;C:\\bin", PATHEXT: ".COM;.EXE" } }, ["C:\\bin\\sourcemap-ls.exe"]),
  );
  assert.deepEqual(r.ok && [r.path, r.source], ["C:\\bin\\sourcemap-ls.exe", "path"]);
});

test("expandSettingPath leaves absolute paths alone", () => {
  assert.equal(expandSettingPath(" /x/sourcemap-ls ", "/h", "/ws", "linux"), "/x/sourcemap-ls");
  assert.equal(expandSettingPath("~", "/h", "/ws", "linux"), "/h");
});
