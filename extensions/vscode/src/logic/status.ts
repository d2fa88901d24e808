// The status bar text for the original position under the cursor, and the debounce that paces its requests.

import type { OriginalPosition } from "../protocol";

export interface StatusView {
  /** Status bar text: `$(icon) source:line:column`, 1-based line and column (as stack traces print them). */
  text: string;
  tooltip: string;
}

const MAX_SOURCE_CHARS = 48;

/** A long source shortened from the left at a path separator: `…/src/components/App.js`. */
export function shortenSource(source: string, max = MAX_SOURCE_CHARS): string {
  if (source.length <= max) {
    return source;
  }
  const parts = source.split("/");
  let out = parts[parts.length - 1] ?? source;
  for (let i = parts.length - 2; i >= 0; i--) {
    const next = `${parts[i]}/${out}`;
    if (next.length + 2 > max) {
      break;
    }
    out = next;
  }
  return `…/${out}`;
}

/** `source:line:column` with 1-based line and column. */
export function originalLabel(o: Pick<OriginalPosition, "source" | "line" | "character">): string {
  return `${o.source ?? "(unnamed source)"}:${o.line + 1}:${o.character + 1}`;
}

/** What the status bar shows for an answer of `sourcemap/originalPosition`; undefined hides the item. `shown` is the
 * source's workspace path when it resolved to a workspace file (the map's `sources` string is then in the tooltip). */
export function formatStatus(o: OriginalPosition | null | undefined, shown?: string): StatusView | undefined {
  if (o === null || o === undefined) {
    return undefined;
  }
  const source = shown ?? o.source ?? "(unnamed source)";
  const label = `${shortenSource(source)}:${o.line + 1}:${o.character + 1}`;
  const lines = [`Original position: ${originalLabel({ ...o, source })}`];
  if (shown !== undefined && o.source !== null && o.source !== shown) {
    lines.push(`Source in the map: ${o.source}`);
  }
  if (o.name !== null && o.name !== "") {
    lines.push(`Name: ${o.name}`);
  }
  lines.push(o.uri !== null ? "Click to open the original source." : "The original source is not available locally.");
  return { text: `$(file-symlink-file) ${label}`, tooltip: lines.join("\n") };
}

/** Calls `fn` once, `ms` after the last `trigger`; `cancel` drops a pending call. */
export class Debouncer {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly ms: number,
    private readonly fn: () => void,
    private readonly timers: {
      set: (f: () => void, ms: number) => ReturnType<typeof setTimeout>;
      clear: (t: ReturnType<typeof setTimeout>) => void;
    } = { set: (f, ms) => setTimeout(f, ms), clear: (t) => clearTimeout(t) },
  ) {}

  trigger(): void {
    this.cancel();
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.fn();
    }, this.ms);
  }

  cancel(): void {
    if (this.timer !== undefined) {
      this.timers.clear(this.timer);
      this.timer = undefined;
    }
  }

  get pending(): boolean {
    return this.timer !== undefined;
  }
}

/** Whether a file name is a bundle the status bar watches: JavaScript-like, or CSS (sass, less, postcss output). */
export function isBundlePath(fsPath: string): boolean {
  return /\.(js|mjs|cjs|bundle|jsbundle|css)$/i.test(fsPath);
}
