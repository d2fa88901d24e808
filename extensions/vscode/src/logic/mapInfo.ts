// "Source Map: Show Map Info": a plain-text report of what the server answers: `sourcemap/mapInfo` (the bundle, its
// comment, the map the server uses and how it found it — or why there is none and every place it looked — its
// sources and index memory), documentSymbol's modules, the original position under the cursor, the diagnostics.
// Nothing here finds a map: a second set of rules would ignore `sourcemap.maps` and could name another map.

import type { LoadedMapInfo, MapInfo } from "../protocol";

export interface ModuleInfo {
  name: string;
  detail?: string | undefined;
  /** 0-based start line in the bundle. */
  startLine: number;
}

export interface MapInfoInput {
  /** The document the report is about, shown when the server gave no answer. */
  document: string;
  /** `sourcemap/mapInfo`, when the server answered it. */
  server?: MapInfo | undefined;
  /** How a path from the server is shown (workspace-relative in the editor); default: as given. */
  displayPath?: ((absolute: string) => string) | undefined;
  /** From `textDocument/documentSymbol` (one per module). */
  modules?: ModuleInfo[] | undefined;
  /** Why a request failed (the server is not running, or answered an error). */
  serverError?: string | undefined;
  /** `sourcemap/originalPosition` at the cursor, already formatted. */
  cursor?: string | undefined;
  diagnostics?: string[] | undefined;
}

export function formatBytes(n: number): string {
  if (n < 1024) {
    return `${n} B`;
  }
  const units = ["KiB", "MiB", "GiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

/** How the server found the map, for people (its `foundBy`). */
export function explainFoundBy(foundBy: string): string {
  switch (foundBy) {
    case "sourceMappingURL":
      return "the bundle's //# sourceMappingURL comment names this file";
    case "data: URL":
      return "the map is inline, in the bundle's //# sourceMappingURL=data: comment";
    case "sidecar":
      return "the bundle has no sourceMappingURL comment; the map beside it has the bundle's name plus .map";
    case "maps setting":
      return "the sourcemap.maps setting names it for this bundle (Attach Source Map… writes that setting)";
    case "maps setting (URL)":
      return "the sourcemap.maps setting names a loopback URL for this bundle, fetched with sourcemap.devServer on";
    case "itself":
      return "this document is a source map";
    default:
      return foundBy;
  }
}

/** What to do about a bundle without a usable map. */
export function noMapAdvice(bundleName: string): string[] {
  return [
    "No source map is in use for this bundle. What to do:",
    "  - run Source Map: Attach Source Map… (also the quick fix on the bundle's first line): pick the .map file, or a",
    "    loopback URL; it is remembered in this workspace's settings (sourcemap.maps);",
    `  - or end the bundle with //# sourceMappingURL=<the map's path>, or put ${bundleName}.map beside it.`,
  ];
}

/** Whether the server loaded the map (and so answered what its index holds). */
export function isLoaded(m: MapInfo): m is MapInfo & LoadedMapInfo {
  return m.sources !== undefined;
}

function sized(bytes: number | null, how: string): string {
  return bytes !== null ? ` (${formatBytes(bytes)}${how !== "" ? ` ${how}` : ""})` : "";
}

/** Where a map without a file came from: the bundle's data: URL, or a loopback URL the server fetched. */
function notAFile(m: MapInfo): string {
  return m.foundBy === "data: URL" ? `inline${sized(m.mapBytes, "decoded")}` : `fetched${sized(m.mapBytes, "")}`;
}

/** The server's half of the report: the bundle, its comment, the map and how it was found, or what was tried. */
function lookupLines(m: MapInfo, shown: (p: string) => string): string[] {
  const out: string[] = [];
  out.push(`Bundle: ${shown(m.bundle)}${sized(m.bundleBytes, "on disk")}`);
  out.push(`sourceMappingURL: ${m.sourceMappingUrl ?? "(no comment in the bundle)"}`);
  if (m.foundBy !== null) {
    const where = m.map !== null ? `${shown(m.map)}${sized(m.mapBytes, "on disk")}` : notAFile(m);
    out.push(`Map: ${where} — found by ${m.foundBy}`);
    out.push(`  How: ${explainFoundBy(m.foundBy)}.`);
  } else {
    out.push("Map: none");
  }
  if (m.problem !== null) {
    out.push(`  ${m.foundBy !== null ? "Not usable" : "Why"}: ${m.problem}`);
  }
  if (m.tried.length > 0) {
    out.push("  Looked for, in order:");
    m.tried.forEach((t, n) => out.push(`    ${n + 1}. ${t}`));
  }
  if (isLoaded(m)) {
    out.push(
      `  ${m.isIndexMap ? `index map, ${m.sections} sections` : "flat map"}, ` +
        `${m.sources.length} sources, ${m.names} names${m.debugId !== null ? `, debugId ${m.debugId}` : ""}`,
    );
    out.push(
      `  index memory: ${formatBytes(m.indexBytes)} for ${formatBytes(m.mappingsBytes)} of mappings ` +
        `(${m.sectionsIndexed} of ${m.sections} sections indexed so far, ${m.segments} segments)`,
    );
    if (m.fit !== undefined && m.fit !== null) {
      out.push(`  Fits this bundle: ${m.fit.verdict === "fits" ? "yes" : m.fit.verdict === "misfit" ? "NO" : "not checked"}`);
      out.push(`    ${m.fit.message}`);
    }
  }
  return out;
}

export function formatMapInfo(i: MapInfoInput): string {
  const shown = i.displayPath ?? ((p: string) => p);
  const m = i.server;
  const out: string[] = [];
  if (m !== undefined) {
    out.push(...lookupLines(m, shown));
  } else {
    out.push(`Bundle: ${i.document}`);
  }
  if (i.serverError !== undefined) {
    out.push(`Server: ${i.serverError}`);
  }
  if (m === undefined || !isLoaded(m)) {
    const name = m !== undefined ? m.bundle : i.document;
    out.push("");
    out.push(...noMapAdvice(name.split(/[\\/]/).pop() ?? name));
  }
  if (i.cursor !== undefined) {
    out.push(`At the cursor: ${i.cursor}`);
  }
  const modules = i.modules ?? [];
  const sources = [...new Set(modules.map((m) => m.name.replace(/ \(\+\d+\)$/, "")))];
  out.push("");
  out.push(`Modules (from the server's outline): ${modules.length}`);
  for (const m of modules) {
    out.push(`  ${m.name}${m.detail !== undefined && m.detail !== "" ? `  [${m.detail}]` : ""}`);
  }
  out.push("");
  out.push(`Sources named by those modules: ${sources.length}`);
  for (const s of sources) {
    out.push(`  ${s}`);
  }
  if (i.diagnostics !== undefined && i.diagnostics.length > 0) {
    out.push("");
    out.push("Diagnostics:");
    for (const d of i.diagnostics) {
      out.push(`  ${d}`);
    }
  }
  if (m !== undefined && isLoaded(m)) {
    out.push("");
    out.push(`Sources of the map: ${m.sources.length}`);
    for (const s of m.sources) {
      out.push(`  ${s.url ?? "(null)"}${s.ignored ? "  [ignore-listed]" : ""}${s.uri !== null ? `  → ${s.uri}` : ""}`);
    }
  }
  return out.join("\n") + "\n";
}
