// Attach Source Map…: the `sourcemap.maps` entry that ties one bundle to the map the user picked. The server reads
// that setting (glob of bundles → map path or loopback URL), so the attachment is remembered with the workspace's
// settings, visible and editable there, and used by every request about the bundle.

import * as path from "node:path";

/** Escapes glob metacharacters so the pattern matches exactly one path (globset: a class of one character). */
export function escapeGlob(p: string): string {
  return p.replace(/[*?[\]{}!]/g, (c) => `[${c}]`);
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

/** `p` relative to `folder` with `/` separators, or undefined when it is outside. */
export function relativeInside(folder: string | undefined, p: string): string | undefined {
  if (folder === undefined) {
    return undefined;
  }
  const rel = path.relative(folder, p);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) {
    return undefined;
  }
  return toPosix(rel);
}

/** Whether a URL names a loopback HTTP server (the only kind the server fetches from, with `sourcemap.devServer`). */
export function isLoopbackUrl(s: string): boolean {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  return u.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(u.hostname);
}

export interface MapsEntry {
  /** The glob: the bundle's path relative to the workspace folder, else its absolute path (escaped). */
  glob: string;
  /** The map: relative to the workspace folder when inside it, else absolute; or a loopback URL. */
  map: string;
}

/** The `sourcemap.maps` entry attaching `map` (a file path or a loopback URL) to `bundle`. */
export function mapsEntry(folder: string | undefined, bundle: string, map: string): MapsEntry {
  const glob = escapeGlob(relativeInside(folder, bundle) ?? toPosix(bundle));
  if (isLoopbackUrl(map)) {
    return { glob, map };
  }
  // A relative map path is read against the folder for a relative glob, against the bundle's folder otherwise: an
  // absolute path is right in both cases when the map is outside the folder.
  const inside = relativeInside(folder, map);
  return { glob, map: inside !== undefined && relativeInside(folder, bundle) !== undefined ? inside : map };
}

/** The `sourcemap.maps` value with `entry` added (replacing an earlier attachment of the same bundle). */
export function withEntry(current: Record<string, string> | undefined, entry: MapsEntry): Record<string, string> {
  return { ...(current ?? {}), [entry.glob]: entry.map };
}

/** The diagnostic codes (the server's) on which Attach Source Map… is offered: a bundle without a map, and a bundle
 * whose map does not fit it (attaching another map is the way out). */
export const NO_SOURCE_MAP = "no-source-map";
export const MAP_MISMATCH = "map-mismatch";

/** Whether a diagnostic with this code (VS Code's `Diagnostic.code`) gets the Attach Source Map… quick fix. */
export function offersAttach(code: string | number | { value: string | number } | undefined): boolean {
  if (code === undefined) {
    return false;
  }
  const text = typeof code === "object" ? String(code.value) : String(code);
  return text === NO_SOURCE_MAP || text === MAP_MISMATCH;
}

/** How far apart two paths are in the folder tree (shared leading folders count for nearness). */
export function folderDistance(a: string, b: string): number {
  const pa = path.dirname(a).split(path.sep);
  const pb = path.dirname(b).split(path.sep);
  let common = 0;
  while (common < pa.length && common < pb.length && pa[common] === pb[common]) {
    common++;
  }
  return pa.length + pb.length - 2 * common;
}

/** The maps to offer for `bundle`, at most `limit`: those named like it first (app.js → app.js.map, app.map), then
 * the nearest in the folder tree, then by path. */
export function nearbyMaps(bundle: string, maps: string[], limit = 8): string[] {
  const stem = path.basename(bundle).replace(/\.(js|mjs|cjs|bundle|jsbundle|css)$/, "");
  return maps
    .map((m) => ({ m, named: path.basename(m).startsWith(stem) ? 0 : 1 }))
    .sort((a, b) => a.named - b.named || folderDistance(a.m, bundle) - folderDistance(b.m, bundle) || a.m.localeCompare(b.m))
    .map((x) => x.m)
    .slice(0, limit);
}
