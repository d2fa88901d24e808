// "Source Map: Show Map Info": a plain-text report from what the server answers (`sourcemap/mapInfo`: the map it chose,
// how, its sources and index memory; documentSymbol's modules; the original position under the cursor; diagnostics)
// and what the extension reads itself (the bundle's `sourceMappingURL` comment).

import type { MapInfo } from "../protocol";

/** The last `//# sourceMappingURL=` (or `//@`, or `/*# … *\/`) in a bundle's text. */
export function findSourceMappingUrl(text: string): string | undefined {
  const re = /(?:\/\/|\/\*)[#@]\s*sourceMappingURL=([^\s'"*]+)/g;
  let last: string | undefined;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    last = m[1];
  }
  return last;
}

export interface ModuleInfo {
  name: string;
  detail?: string | undefined;
  /** 0-based start line in the bundle. */
  startLine: number;
}

export interface MapInfoInput {
  bundle: string;
  /** The comment's URL as written (a data: URL shortened). */
  sourceMappingUrl?: string | undefined;
  /** The map file the comment or sidecar leads to, as the extension sees it on disk. */
  mapFile?: string | undefined;
  mapBytes?: number | undefined;
  /** From `textDocument/documentSymbol` (one per module). */
  modules?: ModuleInfo[] | undefined;
  /** The server's error when it found no map (documentSymbol then answers nothing). */
  serverError?: string | undefined;
  /** `sourcemap/originalPosition` at the cursor, already formatted. */
  cursor?: string | undefined;
  diagnostics?: string[] | undefined;
  /** `sourcemap/mapInfo`, when the server answered it. */
  server?: MapInfo | undefined;
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

export function shortenDataUrl(url: string): string {
  if (!url.startsWith("data:")) {
    return url;
  }
  const comma = url.indexOf(",");
  return `${url.slice(0, comma >= 0 ? Math.min(comma, 60) : 60)},… (inline map, ${url.length} chars)`;
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

export function formatMapInfo(i: MapInfoInput): string {
  const out: string[] = [];
  out.push(`Bundle: ${i.bundle}`);
  if (i.sourceMappingUrl !== undefined) {
    out.push(`sourceMappingURL: ${shortenDataUrl(i.sourceMappingUrl)}`);
  } else {
    out.push("sourceMappingURL: (none in the bundle's text)");
  }
  if (i.mapFile !== undefined) {
    out.push(`Map file: ${i.mapFile}${i.mapBytes !== undefined ? ` (${formatBytes(i.mapBytes)} on disk)` : ""}`);
  }
  if (i.serverError !== undefined) {
    out.push(`Server: ${i.serverError}`);
  }
  const m = i.server;
  if (m !== undefined) {
    out.push(`Map used by the server: ${m.map ?? "(inline data: URL)"} — found by ${m.foundBy}`);
    out.push(`  How: ${explainFoundBy(m.foundBy)}.`);
    out.push(
      `  ${formatBytes(m.mapBytes)}, ${m.isIndexMap ? `index map, ${m.sections} sections` : "flat map"}, ` +
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
  if (m === undefined) {
    out.push("");
    out.push(...noMapAdvice(i.bundle.split("/").pop() ?? i.bundle));
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
  if (m !== undefined) {
    out.push("");
    out.push(`Sources of the map: ${m.sources.length}`);
    for (const s of m.sources) {
      out.push(`  ${s.url ?? "(null)"}${s.ignored ? "  [ignore-listed]" : ""}${s.uri !== null ? `  → ${s.uri}` : ""}`);
    }
  }
  return out.join("\n") + "\n";
}
