// The status bar item: the original source:line:column under the cursor in a bundle, asked of the server as the
// cursor moves (debounced); a click opens it. It asks only a running server: a status bar never starts one.

import * as vscode from "vscode";

import { code2Protocol, type ServerClient } from "./client";
import { Debouncer, formatStatus, isBundlePath, type StatusView } from "./logic/status";
import { ORIGINAL_POSITION, type OriginalPosition } from "./protocol";

export class OriginalPositionStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  view: StatusView | undefined;
  /** Answers arrive out of order when the cursor moves fast: only the latest request's is shown. */
  private seq = 0;
  private readonly debounce: Debouncer;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly server: ServerClient) {
    this.item = vscode.window.createStatusBarItem("sourcemap.originalPosition", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Source Map: original position";
    this.debounce = new Debouncer(150, () => void this.update());
    this.disposables = [
      this.item,
      server.onDidChange(() => this.debounce.trigger()),
      vscode.window.onDidChangeActiveTextEditor(() => this.debounce.trigger()),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) {
          this.debounce.trigger();
        }
      }),
    ];
  }

  private async update(): Promise<void> {
    const seq = ++this.seq;
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document;
    const client = this.server.running();
    if (editor === undefined || doc === undefined || doc.uri.scheme !== "file" || !isBundlePath(doc.uri.fsPath) || client === undefined) {
      this.show(undefined, undefined);
      return;
    }
    const pos = editor.selection.active;
    let answer: OriginalPosition | null = null;
    try {
      answer = await client.sendRequest<OriginalPosition | null>(ORIGINAL_POSITION, {
        textDocument: { uri: code2Protocol(doc.uri) },
        position: { line: pos.line, character: pos.character },
      });
    } catch {
      answer = null; // no map for this file: nothing to show
    }
    if (seq === this.seq) {
      this.show(formatStatus(answer, shownSource(answer)), answer ?? undefined);
    }
  }

  private show(view: StatusView | undefined, target: OriginalPosition | undefined): void {
    this.view = view;
    if (view === undefined) {
      this.item.hide();
      return;
    }
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command =
      target?.uri !== null && target?.uri !== undefined
        ? { title: "Open original", command: "sourcemap.openOriginalAt", arguments: [target.uri, target.line, target.character] }
        : undefined;
    this.item.show();
  }

  /** Resolves when the status bar has been recomputed for the current cursor (tests). */
  async refresh(): Promise<StatusView | undefined> {
    this.debounce.cancel();
    await this.update();
    return this.view;
  }

  dispose(): void {
    this.debounce.cancel();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** A source's workspace path when it resolved to a workspace file (else undefined: the map's string is shown). */
function shownSource(o: Pick<OriginalPosition, "uri"> | null): string | undefined {
  if (o?.uri === null || o?.uri === undefined) {
    return undefined;
  }
  const u = vscode.Uri.parse(o.uri);
  if (u.scheme !== "file" || vscode.workspace.getWorkspaceFolder(u) === undefined) {
    return undefined;
  }
  return vscode.workspace.asRelativePath(u, false);
}
