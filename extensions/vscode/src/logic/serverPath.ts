// Where the sourcemap-ls binary comes from. Pure: the file system is reached only through `isExecutable`, so the
// order and the messages are unit-tested without VS Code.
//
// Order: $SOURCEMAP_LS_PATH → setting `sourcemap.server.path` → the binary bundled in the VSIX (server/sourcemap-ls)
// → `sourcemap-ls` on PATH. An explicit choice (the variable or the setting) that names no executable file is an
// error, not a silent fall-through: the user asked for that binary.

import * as path from "node:path";

export type ServerSource = "env" | "setting" | "bundled" | "path";

export interface ServerPathInput {
  /** The extension host's environment (SOURCEMAP_LS_PATH, PATH, PATHEXT). */
  env: Readonly<Record<string, string | undefined>>;
  /** `sourcemap.server.path` ("" or undefined when unset). */
  setting: string | undefined;
  /** The extension's install folder (holds server/ when the VSIX bundles a binary). */
  extensionPath: string;
  platform: NodeJS.Platform;
  /** For `~` in the setting. */
  homeDir?: string | undefined;
  /** For `${workspaceFolder}` in the setting. */
  workspaceFolder?: string | undefined;
  /** Whether a file exists and can be run. */
  isExecutable(file: string): boolean;
}

export type ServerPathResult =
  | { ok: true; path: string; source: ServerSource; tried: string[] }
  | { ok: false; message: string; tried: string[] };

export const ENV_VAR = "SOURCEMAP_LS_PATH";
export const SETTING = "sourcemap.server.path";

export function binaryName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "sourcemap-ls.exe" : "sourcemap-ls";
}

export function bundledServerPath(extensionPath: string, platform: NodeJS.Platform): string {
  const p = platform === "win32" ? path.win32 : path.posix;
  return p.join(extensionPath, "server", binaryName(platform));
}

/** Expands `~` / `~/…` and `${workspaceFolder}`, and makes a relative path absolute against the workspace folder. */
export function expandSettingPath(
  value: string,
  homeDir: string | undefined,
  workspaceFolder: string | undefined,
  platform: NodeJS.Platform,
): string {
  const p = platform === "win32" ? path.win32 : path.posix;
  let v = value.trim();
  if (workspaceFolder !== undefined) {
    v = v.split("${workspaceFolder}").join(workspaceFolder);
  }
  if (homeDir !== undefined && (v === "~" || v.startsWith("~/") || v.startsWith("~\\"))) {
    v = p.join(homeDir, v.slice(1));
  }
  if (!p.isAbsolute(v) && workspaceFolder !== undefined && (v.includes("/") || v.includes("\\"))) {
    v = p.join(workspaceFolder, v);
  }
  return v;
}

/** `name` (default `sourcemap-ls`) searched along PATH (with PATHEXT's extensions on Windows). */
export function searchPath(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  isExecutable: (file: string) => boolean,
  tried: string[],
  name = "sourcemap-ls",
): string | undefined {
  const p = platform === "win32" ? path.win32 : path.posix;
  const value = env.PATH ?? env.Path ?? "";
  const dirs = value.split(p.delimiter).filter((d) => d.length > 0);
  const names =
    platform === "win32"
      ? (env.PATHEXT ?? ".EXE;.CMD;.BAT")
          .split(";")
          .filter((e) => e.length > 0)
          .map((e) => (name.toLowerCase().endsWith(e.toLowerCase()) ? name : name + e.toLowerCase()))
      : [name];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = p.join(dir, name);
      tried.push(candidate);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

const FIX =
  "Fix: build it (`cargo build --release --bin sourcemap-ls` in the sourcemap-ls repository) and set " +
  `\`${SETTING}\` to the binary (e.g. /path/to/sourcemap-ls/target/release/sourcemap-ls), or put \`sourcemap-ls\` ` +
  `on PATH, or set the environment variable ${ENV_VAR}. Then run "Source Map: Restart Server".`;

export function resolveServerPath(input: ServerPathInput): ServerPathResult {
  const tried: string[] = [];
  const fromEnv = input.env[ENV_VAR];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    const p = expandSettingPath(fromEnv, input.homeDir, undefined, input.platform);
    tried.push(p);
    if (input.isExecutable(p)) {
      return { ok: true, path: p, source: "env", tried };
    }
    return {
      ok: false,
      tried,
      message: `sourcemap-ls: ${ENV_VAR} is set to "${fromEnv}", which is not an executable file. Fix: point ${ENV_VAR} at the sourcemap-ls binary, or unset it to use \`${SETTING}\`, the bundled binary or PATH.`,
    };
  }
  const setting = input.setting;
  if (setting !== undefined && setting.trim() !== "") {
    const p = expandSettingPath(setting, input.homeDir, input.workspaceFolder, input.platform);
    const bare = !p.includes("/") && !p.includes("\\");
    if (bare) {
      // A bare command name: looked up on PATH, as a shell would.
      const found = searchPath(input.env, input.platform, input.isExecutable, tried, p);
      if (found !== undefined) {
        return { ok: true, path: found, source: "setting", tried };
      }
    } else {
      tried.push(p);
      if (input.isExecutable(p)) {
        return { ok: true, path: p, source: "setting", tried };
      }
    }
    return {
      ok: false,
      tried,
      message: `sourcemap-ls: the setting \`${SETTING}\` is "${setting}", which is not an executable file. Fix: correct the setting (an absolute path to the sourcemap-ls binary), or clear it to use the bundled binary or PATH.`,
    };
  }
  const bundled = bundledServerPath(input.extensionPath, input.platform);
  tried.push(bundled);
  if (input.isExecutable(bundled)) {
    return { ok: true, path: bundled, source: "bundled", tried };
  }
  const onPath = searchPath(input.env, input.platform, input.isExecutable, tried);
  if (onPath !== undefined) {
    return { ok: true, path: onPath, source: "path", tried };
  }
  return {
    ok: false,
    tried,
    message: `sourcemap-ls was not found: ${ENV_VAR} and \`${SETTING}\` are not set, this extension has no bundled server, and no \`sourcemap-ls\` is on PATH. ${FIX}`,
  };
}
