// Stack frames printed in the integrated terminal (a `node` crash, a test run) link to their original positions.
// VS Code itself links `bundle.js:1:50` to the minified position; this provider asks the server to symbolicate the
// line (every format `sourcemap/symbolicate` reads) and links the frame's location to the original source.

import * as path from "node:path";
import * as vscode from "vscode";

import { linkColumns } from "./logic/symbolicate";
import { SYMBOLICATE, type SymbolicateParams, type SymbolicateResult } from "./protocol";

/**
 * A line that may hold a stack frame: `file:line:column`, `fn@file:line:column`, `at …`, a line-only frame
 * (`fn@URL:61`, `URL:61` after a script's extension), or Opera's Presto lines (`Line 61 of linked script URL`,
 * `called from line 61, column 4 in …`). The server decides; this only spares it lines that cannot be frames.
 */
const FRAME_LIKE = /:\d+:\d+|\bat\s|@\S+:\d+|\.(?:m?js|cjs|jsx|tsx?|bundle|html?)\b\S*:\d+|\bline \d+(?:, column \d+)? (?:of|in)\b/i;
/** Longer terminal lines are not asked about (minified code dumped to the terminal). */
const MAX_LINE = 2000;

export interface OriginalTerminalLink extends vscode.TerminalLink {
  uri: string;
  line: number;
  character: number;
  /** Set when several same-named bundles could be the frame's: the click asks which, then opens. */
  choose?: { params: SymbolicateParams; file: string; candidates: string[] };
}

export interface TerminalLinkHost {
  request<R>(method: string, params: object): Promise<R>;
  openAt(uri: string, line: number, character: number): Promise<vscode.TextEditor>;
  pickBundle(title: string, uris: string[]): Promise<string | undefined>;
  readonly log: vscode.LogOutputChannel;
}

/** Where the terminal runs, so relative bundle paths resolve: its cwd if it was given one, else the first folder. */
function terminalFolder(terminal: vscode.Terminal): string | undefined {
  const options = terminal.creationOptions as vscode.TerminalOptions;
  const cwd = options.cwd;
  if (typeof cwd === "string" && cwd !== "") {
    return cwd;
  }
  if (cwd instanceof vscode.Uri && cwd.scheme === "file") {
    return cwd.fsPath;
  }
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

export class StackTerminalLinks implements vscode.TerminalLinkProvider<OriginalTerminalLink> {
  constructor(private readonly host: TerminalLinkHost) {}

  async provideTerminalLinks(context: vscode.TerminalLinkContext, token: vscode.CancellationToken): Promise<OriginalTerminalLink[]> {
    const line = context.line;
    if (line.length > MAX_LINE || !FRAME_LIKE.test(line)) {
      return [];
    }
    const folder = terminalFolder(context.terminal);
    // The server resolves relative bundle paths against the folder of `uri`: a name inside the terminal's cwd.
    const params: SymbolicateParams = folder !== undefined ? { text: line, uri: vscode.Uri.file(path.join(folder, "terminal")).toString() } : { text: line };
    let result: SymbolicateResult;
    try {
      result = await this.host.request<SymbolicateResult>(SYMBOLICATE, params);
    } catch (e) {
      this.host.log.debug(`terminal link: ${e instanceof Error ? e.message : String(e)}`);
      return [];
    }
    if (token.isCancellationRequested) {
      return [];
    }
    const links: OriginalTerminalLink[] = [];
    const ambiguous = new Map((result.ambiguous ?? []).map((a) => [a.file, a.candidates]));
    for (const frame of result.frames) {
      const loc = frame.location;
      const o = frame.original;
      const file = frame.generated?.file ?? undefined;
      const candidates = file !== undefined && file !== null ? ambiguous.get(file) : undefined;
      if (candidates !== undefined && file !== undefined && file !== null) {
        const cols = linkColumns(line, { ...frame, original: null });
        links.push({
          startIndex: cols.start,
          length: cols.end - cols.start,
          tooltip: `${candidates.length} bundles are named ${path.basename(file.split(/[?#]/)[0] ?? file)}: click to choose the build and open the original`,
          uri: "",
          line: 0,
          character: 0,
          choose: { params, file, candidates },
        });
        continue;
      }
      if (loc === null || o === null) {
        continue;
      }
      // The frame's own location in the line as printed (the server's `text` is the symbolicated one).
      const cols = linkColumns(line, { ...frame, original: null });
      const fn = o.function ?? o.name;
      // A source that resolved to a workspace file is named by its workspace path, not the map's raw `sources`.
      const target = vscode.Uri.parse(loc.uri);
      const shown = target.scheme === "file" ? vscode.workspace.asRelativePath(target) : (o.source ?? loc.uri);
      links.push({
        startIndex: cols.start,
        length: cols.end - cols.start,
        tooltip: `Open the original: ${shown}:${o.line + 1}:${o.character + 1}${fn !== null ? ` (${fn})` : ""}`,
        uri: loc.uri,
        line: loc.range.start.line,
        character: loc.range.start.character,
      });
    }
    return links;
  }

  async handleTerminalLink(link: OriginalTerminalLink): Promise<void> {
    const c = link.choose;
    if (c === undefined) {
      await this.host.openAt(link.uri, link.line, link.character);
      return;
    }
    const bundle = await this.host.pickBundle(`Which build printed this frame? ${c.candidates.length} bundles are named ${path.basename(c.file)}`, c.candidates);
    if (bundle === undefined) {
      return;
    }
    const result = await this.host.request<SymbolicateResult>(SYMBOLICATE, { ...c.params, bundles: { [c.file]: bundle } });
    const loc = result.frames.find((f) => f.location !== null)?.location;
    if (loc === undefined || loc === null) {
      void vscode.window.showInformationMessage("Source Map: that bundle's map has no mapping for this frame.");
      return;
    }
    await this.host.openAt(loc.uri, loc.range.start.line, loc.range.start.character);
  }
}
