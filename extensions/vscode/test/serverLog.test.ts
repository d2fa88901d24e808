import assert from "node:assert/strict";
import { test } from "node:test";

import { parseServerLogLine } from "../src/logic/serverLog";

test("tracing lines keep their level, without the timestamp", () => {
  assert.deepEqual(parseServerLogLine("2026-11-29T23:00:18.156957Z  INFO sourcemap_ls::lsp::map_store: indexed map path=/w/a.map ok=true"), {
    level: "info",
    message: "sourcemap_ls::lsp::map_store: indexed map path=/w/a.map ok=true",
  });
  assert.equal(parseServerLogLine("2026-11-29T23:00:18Z  WARN x: trailing comma").level, "warn");
  assert.equal(parseServerLogLine("2026-11-29T23:00:18Z ERROR x: boom").level, "error");
  assert.equal(parseServerLogLine("2026-11-29T23:00:18Z DEBUG x: y").level, "debug");
  assert.equal(parseServerLogLine("\u001b[2m2026-11-29T23:00:18Z\u001b[0m \u001b[32m INFO\u001b[0m x: y").message, "x: y");
});

test("other lines: panics are errors, the rest info", () => {
  assert.equal(parseServerLogLine("thread 'tokio-runtime-worker' panicked at src/x.rs:1:1:").level, "error");
  assert.deepEqual(parseServerLogLine("note: run with `RUST_BACKTRACE=1`"), { level: "info", message: "note: run with `RUST_BACKTRACE=1`" });
});
