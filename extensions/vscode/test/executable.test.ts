import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { isExecutable } from "../src/logic/executable";

test("a file with the execute bit runs; one without, a folder and a missing path do not (any file on Windows)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sourcemap-exec-"));
  try {
    const runnable = path.join(dir, "sourcemap-ls");
    const plain = path.join(dir, "notes.txt");
    fs.writeFileSync(runnable, "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(plain, "", { mode: 0o644 });
    assert.equal(isExecutable(runnable, "linux"), true);
    assert.equal(isExecutable(dir, "linux"), false);
    assert.equal(isExecutable(path.join(dir, "missing"), "linux"), false);
    assert.equal(isExecutable(plain, "win32"), true);
    if (process.getuid?.() !== 0) {
      // root may run anything, so the execute bit is only checked as another user.
      assert.equal(isExecutable(plain, "linux"), false);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
