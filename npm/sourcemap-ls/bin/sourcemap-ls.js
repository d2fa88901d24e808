#!/usr/bin/env node
"use strict";
// Runs the native sourcemap-ls of this platform, from the platform package npm installed beside this one as an
// optional dependency (the layout esbuild and biome use), with the same arguments, stdio, exit status and signal.

const { spawnSync } = require("node:child_process");
const path = require("node:path");

// Platform packages, by `${process.platform}-${process.arch}`. Only those built by scripts/package are published.
const PLATFORMS = {
  "linux-x64": "@sourcemap-ls/linux-x64",
  "linux-arm64": "@sourcemap-ls/linux-arm64",
  "darwin-x64": "@sourcemap-ls/darwin-x64",
  "darwin-arm64": "@sourcemap-ls/darwin-arm64",
  "win32-x64": "@sourcemap-ls/win32-x64",
};

function fail(message) {
  process.stderr.write(`sourcemap-ls: ${message}\n`);
  process.exit(1);
}

function binaryPath() {
  if (process.env.SOURCEMAP_LS_BINARY) {
    return process.env.SOURCEMAP_LS_BINARY;
  }
  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORMS[key];
  const build =
    "build it from source (in a clone of the project: cargo install --path server/sourcemap-ls) and set SOURCEMAP_LS_BINARY, or put it on PATH";
  if (pkg === undefined) {
    fail(`no prebuilt binary for ${key}; ${build}`);
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    fail(
      `the package ${pkg} with the binary for ${key} is not installed. npm installs it as an optional dependency: ` +
        `reinstall without --omit=optional / --no-optional, or ${build}`,
    );
  }
  return path.join(dir, "bin", process.platform === "win32" ? "sourcemap-ls.exe" : "sourcemap-ls");
}

const result = spawnSync(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  fail(`cannot run ${binaryPath()}: ${result.error.message}`);
}
if (result.signal) {
  // The same end as the binary's (SIGPIPE after `| head`, SIGINT): default action, no message.
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
