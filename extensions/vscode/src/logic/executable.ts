// Whether a path names a file that can be run: the check `resolveServerPath` is given for each candidate binary.
// Windows has no execute bit: any file counts there.

import * as fs from "node:fs";

export function isExecutable(file: string, platform: NodeJS.Platform = process.platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    if (platform === "win32") {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
