// From a `sourcemap/symbolicate` answer to what the result editor shows: a link on each mapped frame (to its
// original location), and the ignore-listed frames to dim and fold.

import type { Location, Range, SymbolicateResult, SymbolicatedFrame } from "../protocol";

export interface FrameLine {
  frame: SymbolicatedFrame;
  /** 0-based line of the frame in `result.text`. */
  line: number;
}

export interface FrameLink {
  /** Where the link sits in the result text. */
  range: Range;
  /** The original location (0-based). */
  target: Location;
  /** `uri#L<line>,<col>` (1-based), the fragment VS Code's link opener turns into a selection. */
  targetWithFragment: string;
  tooltip: string;
}

function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

/**
 * Pairs each frame with its line in the rendered text. The server renders one line per input line, frames in order,
 * so frames are matched in order against the lines still ahead (exactly, then ignoring surrounding white space).
 */
export function frameLines(result: SymbolicateResult): FrameLine[] {
  const lines = splitLines(result.text);
  const out: FrameLine[] = [];
  let next = 0;
  for (const frame of result.frames) {
    const want = frame.text.trimEnd();
    let found = -1;
    for (let i = next; i < lines.length; i++) {
      if ((lines[i] ?? "").trimEnd() === want) {
        found = i;
        break;
      }
    }
    if (found < 0) {
      const trimmed = want.trim();
      for (let i = next; i < lines.length; i++) {
        if ((lines[i] ?? "").trim() === trimmed) {
          found = i;
          break;
        }
      }
    }
    if (found >= 0) {
      out.push({ frame, line: found });
      next = found + 1;
    }
  }
  return out;
}

/** `file:///a.js#L5,24` for a 0-based position (the fragment is 1-based, as the server's document links). */
export function withLineFragment(uri: string, line: number, character: number): string {
  const hash = uri.indexOf("#");
  const base = hash >= 0 ? uri.slice(0, hash) : uri;
  return `${base}#L${line + 1},${character + 1}`;
}

/** Where in a frame's line the link goes: the `source:line:column` the server printed, else the text in the last
 * parentheses, else the line without its indentation. */
export function linkColumns(lineText: string, frame: SymbolicatedFrame): { start: number; end: number } {
  const o = frame.original;
  if (o !== null && o.source !== null) {
    const needle = `${o.source}:${o.line + 1}:${o.character + 1}`;
    const at = lineText.lastIndexOf(needle);
    if (at >= 0) {
      return { start: at, end: at + needle.length };
    }
    const loose = lineText.lastIndexOf(`${o.source}:${o.line + 1}`);
    if (loose >= 0) {
      let end = loose + o.source.length + 1 + String(o.line + 1).length;
      const rest = /^:\d+/.exec(lineText.slice(end));
      if (rest !== null) {
        end += rest[0].length;
      }
      return { start: loose, end };
    }
  }
  const open = lineText.lastIndexOf("(");
  const close = lineText.lastIndexOf(")");
  if (open >= 0 && close > open + 1) {
    return { start: open + 1, end: close };
  }
  const start = lineText.length - lineText.trimStart().length;
  return { start, end: lineText.trimEnd().length };
}

/** One link per frame that maps to a location the editor can open. */
export function frameLinks(result: SymbolicateResult): FrameLink[] {
  const lines = splitLines(result.text);
  const links: FrameLink[] = [];
  for (const { frame, line } of frameLines(result)) {
    const loc = frame.location;
    if (loc === null) {
      continue;
    }
    const text = lines[line] ?? "";
    const cols = linkColumns(text, frame);
    const p = loc.range.start;
    const fn = frame.original?.function ?? frame.original?.name ?? null;
    links.push({
      range: { start: { line, character: cols.start }, end: { line, character: cols.end } },
      target: loc,
      targetWithFragment: withLineFragment(loc.uri, p.line, p.character),
      tooltip: `Open ${frame.original?.source ?? loc.uri}:${p.line + 1}:${p.character + 1}${fn !== null ? ` (${fn})` : ""}`,
    });
  }
  return links;
}

/** Lines of ignore-listed frames (x_google_ignoreList / ignoreList), to dim. */
export function ignoredLines(result: SymbolicateResult): number[] {
  return frameLines(result)
    .filter((f) => f.frame.ignored)
    .map((f) => f.line);
}

/** Runs of consecutive ignored lines. */
export function ignoredRuns(result: SymbolicateResult): Array<{ start: number; end: number }> {
  const runs: Array<{ start: number; end: number }> = [];
  for (const l of ignoredLines(result)) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.end === l - 1) {
      last.end = l;
    } else {
      runs.push({ start: l, end: l });
    }
  }
  return runs;
}

/** Runs of two or more consecutive ignored lines, as folding ranges: the first line stays visible (dimmed) and
 * the others fold under it. */
export function ignoredFoldingRanges(result: SymbolicateResult): Array<{ start: number; end: number }> {
  return ignoredRuns(result).filter((r) => r.end > r.start);
}

/** The note after each ignored line: the first of a folded run says how many frames are folded under it. */
export function ignoredLabels(result: SymbolicateResult): Array<{ line: number; label: string }> {
  const out: Array<{ line: number; label: string }> = [];
  for (const r of ignoredRuns(result)) {
    const more = r.end - r.start;
    out.push({ line: r.start, label: more > 0 ? `  ignore-listed (+${more} folded)` : "  ignore-listed" });
    for (let l = r.start + 1; l <= r.end; l++) {
      out.push({ line: l, label: "  ignore-listed" });
    }
  }
  return out;
}

/** The note after each frame that stayed as it was, so it cannot be taken for a mapped one: why it was not mapped. */
export function unmappedLabels(result: SymbolicateResult): Array<{ line: number; label: string; reason: string }> {
  return frameLines(result)
    .filter((f) => f.frame.original === null)
    .map((f) => {
      const reason = f.frame.unresolved ?? "not mapped";
      return { line: f.line, label: reason === "native frame" ? "  native (no map)" : `  not mapped: ${reason}`, reason };
    });
}

export interface SymbolicateSummary {
  frames: number;
  mapped: number;
  ignored: number;
  unresolved: number;
}

export function summarize(result: SymbolicateResult): SymbolicateSummary {
  return {
    frames: result.frames.length,
    mapped: result.frames.filter((f) => f.original !== null).length,
    ignored: result.frames.filter((f) => f.ignored).length,
    unresolved: result.frames.filter((f) => f.unresolved !== null && f.original === null).length,
  };
}
