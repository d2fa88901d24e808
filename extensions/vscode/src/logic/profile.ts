// What Show Profile shows of the server's `sourcemap/profile` answer: the rows' labels and times, the header, the
// panel's page, and the inline self times of each original source. The client adds nothing the server did not say:
// names, sources, lines and times are the answer's, only formatted (lines 1-based for people).

import type { ProfileGrouping, ProfileResult, ProfileRow } from "../protocol";

export const GROUPINGS: readonly ProfileGrouping[] = ["function", "file", "package"];

/** The most rows the panel lists (the rest are counted below the table). */
export const MAX_LISTED_ROWS = 500;

export function isGrouping(v: unknown): v is ProfileGrouping {
  return typeof v === "string" && (GROUPINGS as readonly string[]).includes(v);
}

/** `812.3 ms` */
export function formatMs(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}

/** `41.2 %` */
export function formatPercent(p: number): string {
  return `${p.toFixed(1)} %`;
}

/** What a row is, in the first column: the function, the file or the package (an unmapped row keeps the profile's
 * own name whatever the grouping, as the server sends it). */
export function rowLabel(row: ProfileRow, by: ProfileGrouping): string {
  if (row.unmapped) {
    return row.function ?? row.source ?? "(unknown)";
  }
  switch (by) {
    case "function":
      return row.function ?? "(anonymous)";
    case "file":
      return row.source ?? "(unknown source)";
    case "package":
      return row.package ?? "(no package)";
  }
}

/** Where a row is: `source:line` with the line 1-based; the script URL alone for an unmapped row; "" for none. */
export function rowPlace(row: ProfileRow): string {
  if (row.source === null) {
    return "";
  }
  return row.line !== null ? `${row.source}:${row.line + 1}` : row.source;
}

/** The inline self time at a function's line: `$(watch) 812.3 ms self (41.2 %) · 900.1 ms total` (a CodeLens title;
 * `$(watch)` is VS Code's stopwatch icon, drawn by its own icon font where a ⏱ glyph may be missing from the system's). */
export function lensTitle(row: ProfileRow): string {
  return `$(watch) ${formatMs(row.selfMs)} self (${formatPercent(row.selfPercent)}) · ${formatMs(row.totalMs)} total`;
}

/** The header's line: `V8 .cpuprofile · 1387 samples · 1514.7 ms · 3 of 62 frames mapped`. */
export function summaryText(r: ProfileResult): string {
  const samples = `${r.samples} sample${r.samples === 1 ? "" : "s"}`;
  return `${r.format} · ${samples} · ${formatMs(r.totalMs)} · ${r.mapped} of ${r.positioned} frames mapped`;
}

/** A bar's width in percent of its cell (0 to 100). */
export function barWidth(percent: number): number {
  return Number.isFinite(percent) ? Math.min(100, Math.max(0, percent)) : 0;
}

export interface InlineTime {
  /** 0-based line in the document. */
  line: number;
  title: string;
  /** The row's index in the answer. */
  row: number;
}

/** The inline self times of each document: by `key(location.uri)` (the caller's normal form of a URI), one entry per
 * row that has a location — mapped functions; unmapped rows have none. */
export function inlineTimes(rows: readonly ProfileRow[], key: (uri: string) => string): Map<string, InlineTime[]> {
  const out = new Map<string, InlineTime[]>();
  rows.forEach((row, i) => {
    if (row.location === null || row.unmapped) {
      return;
    }
    const k = key(row.location.uri);
    const list = out.get(k) ?? [];
    list.push({ line: row.location.range.start.line, title: lensTitle(row), row: i });
    out.set(k, list);
  });
  return out;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

const GROUP_TITLES: Record<ProfileGrouping, string> = { function: "Function", file: "File", package: "Package" };

/** The last column's heading, by grouping. */
function whatHeading(by: ProfileGrouping): string {
  switch (by) {
    case "function":
      return "function <span class=\"sub\">source:line · package</span>";
    case "file":
      return "file <span class=\"sub\">package</span>";
    case "package":
      return "package";
  }
}

/** What the row is, in one cell of two lines: the name (function, file or package; an unmapped row marked), then
 * where it is (`source:line`, for an unmapped row its script) and its package. Each line is cut with an ellipsis when
 * the panel is narrow; the cell's tooltip has it whole. */
function whatCell(row: ProfileRow, by: ProfileGrouping): string {
  const name = rowLabel(row, by);
  const source = by === "function" || row.unmapped ? rowPlace(row) : "";
  const pkg = by !== "package" && !row.unmapped ? (row.package ?? "") : "";
  const marker = row.unmapped ? ' <span class="tag">not mapped</span>' : "";
  const tip = [name, source, pkg].filter((t) => t !== "").join(" · ");
  const second =
    source === "" && pkg === ""
      ? ""
      : `<div class="place">${source !== "" ? `<span class="source">${escapeHtml(source)}</span>` : ""}${pkg !== "" ? `<span class="package">${escapeHtml(pkg)}</span>` : ""}</div>`;
  return `<td class="what" title="${escapeHtml(tip)}"><div class="name">${escapeHtml(name)}${marker}</div>${second}</td>`;
}

function timeCells(ms: number, percent: number, kind: "self" | "total"): string {
  return (
    `<td class="num ${kind}-ms">${formatMs(ms)}</td>` +
    `<td class="num ${kind}-percent">${formatPercent(percent)}</td>` +
    `<td class="bar"><div class="fill ${kind}" style="width:${barWidth(percent).toFixed(1)}%"></div></td>`
  );
}

export interface PageOptions {
  /** The profile's file name, for the heading. */
  title: string;
  by: ProfileGrouping;
  /** The script nonce (the page's Content-Security-Policy allows only that script). */
  nonce: string;
}

/** The panel's page: the header (format, samples, total time, frames mapped, the server's warnings), the grouping
 * buttons and one table row per answer row, each with a bar for self and for total time. A click on a row that has a
 * location posts `{type: "open", row}`; a grouping button `{type: "group", by}`; once drawn, the page posts
 * `{type: "rendered", rows, first}` with what it shows. */
export function profileHtml(r: ProfileResult, o: PageOptions): string {
  const listed = r.functions.slice(0, MAX_LISTED_ROWS);
  const more = r.functions.length - listed.length;
  // The times first, as profilers show them: a narrow panel keeps the numbers and cuts the names.
  const head =
    '<th class="num">self</th><th class="num">%</th><th></th><th class="num">total</th><th class="num">%</th><th></th>' +
    `<th class="what">${whatHeading(o.by)}</th>`;
  const rows = listed
    .map((row, i) => {
      const classes = [row.unmapped ? "unmapped" : "", row.location !== null ? "openable" : ""].filter((c) => c !== "").join(" ");
      const tip = row.location !== null ? ` title="Open ${escapeHtml(rowPlace(row))}"` : "";
      return (
        `<tr data-row="${i}"${classes !== "" ? ` class="${classes}"` : ""}${row.location !== null ? ' tabindex="0"' : ""}${tip}>` +
        timeCells(row.selfMs, row.selfPercent, "self") +
        timeCells(row.totalMs, row.totalPercent, "total") +
        whatCell(row, o.by) +
        "</tr>"
      );
    })
    .join("\n");
  const warnings =
    r.warnings.length === 0 ? "" : `<ul class="warnings">${r.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul>`;
  const buttons = GROUPINGS.map(
    (g) => `<button data-by="${g}"${g === o.by ? ' class="active" aria-pressed="true"' : ' aria-pressed="false"'}>${GROUP_TITLES[g]}</button>`,
  ).join("");
  const empty = r.functions.length === 0 ? '<p class="empty">The profile has no samples.</p>' : "";
  const rest = more > 0 ? `<p class="more">… and ${more} more rows</p>` : "";
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${o.nonce}';">
<title>${escapeHtml(o.title)}</title>
<style>
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 8px 16px; }
h1 { font-size: 1.2em; margin: 4px 0; }
.summary { margin: 4px 0 8px; color: var(--vscode-descriptionForeground); }
.warnings { color: var(--vscode-editorWarning-foreground); margin: 4px 0 8px; padding-left: 18px; }
.group { margin: 8px 0; }
.group button { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); border: none; padding: 3px 10px; cursor: pointer; }
.group button.active { background: var(--vscode-button-background); color: var(--vscode-button-foreground); }
table { border-collapse: collapse; width: 100%; }
th { text-align: left; font-weight: 600; border-bottom: 1px solid var(--vscode-panel-border, #8884); padding: 3px 4px; white-space: nowrap; }
td { padding: 2px 4px; white-space: nowrap; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; width: 1%; }
th.what, td.what { width: 100%; max-width: 0; padding-left: 10px; overflow: hidden; text-overflow: ellipsis; }
th .sub { font-weight: normal; color: var(--vscode-descriptionForeground); }
td.what div { overflow: hidden; text-overflow: ellipsis; }
td.what .name { font-family: var(--vscode-editor-font-family); }
td.what .place { font-size: 0.9em; color: var(--vscode-descriptionForeground); }
td.what .package::before { content: " · "; }
td.what .place .package:first-child::before { content: ""; }
td.bar { width: 48px; min-width: 48px; padding-left: 0; }
tbody td { border-bottom: 1px solid var(--vscode-panel-border, #8882); }
.fill { height: 8px; border-radius: 2px; min-width: 1px; }
.fill.self { background: var(--vscode-charts-orange, #d18616); }
.fill.total { background: var(--vscode-charts-blue, #3794ff); }
tr.openable { cursor: pointer; }
tr.openable:hover, tr.openable:focus { background: var(--vscode-list-hoverBackground); outline: none; }
tr.unmapped td.what .name { color: var(--vscode-descriptionForeground); font-style: italic; }
.tag { font-style: normal; font-size: 0.85em; border: 1px solid var(--vscode-descriptionForeground); border-radius: 3px; padding: 0 4px; margin-left: 4px; }
</style></head>
<body>
<h1>${escapeHtml(o.title)}</h1>
<p class="summary">${escapeHtml(summaryText(r))}</p>
${warnings}
<div class="group">Group by: ${buttons}</div>
<table><thead><tr>${head}</tr></thead>
<tbody>
${rows}
</tbody></table>
${empty}${rest}
<script nonce="${o.nonce}">
const vscodeApi = acquireVsCodeApi();
for (const b of document.querySelectorAll("button[data-by]")) {
  b.addEventListener("click", () => vscodeApi.postMessage({ type: "group", by: b.dataset.by }));
}
for (const tr of document.querySelectorAll("tr.openable")) {
  const open = () => vscodeApi.postMessage({ type: "open", row: Number(tr.dataset.row) });
  tr.addEventListener("click", open);
  tr.addEventListener("keydown", (e) => { if (e.key === "Enter") open(); });
}
const first = document.querySelector("tbody tr td.what .name");
vscodeApi.postMessage({ type: "rendered", rows: document.querySelectorAll("tbody tr").length, first: first && first.firstChild ? first.firstChild.textContent : null });
</script>
</body></html>`;
}
