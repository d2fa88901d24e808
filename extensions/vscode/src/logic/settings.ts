// VS Code's `sourcemap.*` settings → the object sourcemap-ls reads (initializationOptions, workspace/configuration
// and workspace/didChangeConfiguration). Only well-typed values are passed; anything else falls back to defaults, as
// the server itself does.

export const DEFAULT_MAX_MAP_BYTES = 1073741824;

export interface ServerSettings {
  pathOverrides: Record<string, string>;
  maps: Record<string, string>;
  maxMapBytes: number;
  devServer: boolean;
  /** Cap on all cached map indexes together; 0: the server's default. */
  maxIndexBytes: number;
  /** One budget for the caches beside the indexes (source texts, function scopes, diffs, verdicts); 0: default. */
  maxCacheBytes: number;
}

export type TraceSetting = "off" | "messages" | "verbose";

/** Reads one key of the `sourcemap` section (VS Code's `WorkspaceConfiguration.get`). */
export type SettingGetter = (key: string) => unknown;

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return out;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === "string" && k.length > 0) {
      out[k] = v;
    }
  }
  return out;
}

/** A byte count the user set, or 0 (the server's default) for anything else. */
function bytesOrDefault(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}

export function toServerSettings(get: SettingGetter): ServerSettings {
  const max = get("maxMapBytes");
  return {
    pathOverrides: stringRecord(get("pathOverrides")),
    maps: stringRecord(get("maps")),
    maxMapBytes:
      typeof max === "number" && Number.isFinite(max) && max >= 0 ? Math.floor(max) : DEFAULT_MAX_MAP_BYTES,
    devServer: get("devServer") === true,
    maxIndexBytes: bytesOrDefault(get("maxIndexBytes")),
    maxCacheBytes: bytesOrDefault(get("maxCacheBytes")),
  };
}

export function traceSetting(get: SettingGetter): TraceSetting {
  const v = get("trace.server");
  return v === "messages" || v === "verbose" ? v : "off";
}

/** Whether a settings change needs a new server process (the binary changed) or only a notification. */
export function changeNeedsRestart(affects: (section: string) => boolean): boolean {
  return affects("sourcemap.server.path");
}

/** Settings the server reads, for the `affectsConfiguration` checks. */
export const SERVER_SETTING_KEYS = [
  "sourcemap.pathOverrides",
  "sourcemap.maps",
  "sourcemap.maxMapBytes",
  "sourcemap.devServer",
  "sourcemap.maxIndexBytes",
  "sourcemap.maxCacheBytes",
] as const;
