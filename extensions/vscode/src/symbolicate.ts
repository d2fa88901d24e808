// Symbolicate Selection and Symbolicate Clipboard: the trace goes to `sourcemap/symbolicate`, and the answer opens
// as a read-only `sourcemap-symbolicated:` document whose frames link to their original sources, whose runs of
// ignore-listed frames fold, and whose frames that stayed as printed say why.

import * as path from "node:path";
import * as vscode from "vscode";

import { code2Protocol, type ServerClient } from "./client";
import { errorText } from "./logic/errors";
import { frameLinks, ignoredFoldingRanges, ignoredLabels, summarize, unmappedLabels } from "./logic/symbolicate";
import { pickBundle } from "./navigation";
import { SYMBOLICATE, type SymbolicateParams, type SymbolicateResult } from "./protocol";

export const RESULT_SCHEME = "sourcemap-symbolicated";

export interface Symbolicated {
  uri: string;
  result: SymbolicateResult;
}

function toRange(r: { start: { line: number; character: number }; end: { line: number; character: number } }): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

export class SymbolicateResults implements vscode.Disposable {
  /** The open result documents' answers, by URI: their text, links, folds and decorations come from these. */
  private readonly results = new Map<string, SymbolicateResult>();
  private count = 0;
  private readonly dimmed = vscode.window.createTextEditorDecorationType({ opacity: "0.5" });
  /** Frames of a symbolicated trace that stayed as printed (native, no mapping, no map). */
  private readonly unmapped = vscode.window.createTextEditorDecorationType({ fontStyle: "italic" });
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly server: ServerClient) {
    this.disposables = [
      this.dimmed,
      this.unmapped,
      vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, {
        provideTextDocumentContent: (uri) => this.results.get(uri.toString())?.text ?? "(this result is no longer available: symbolicate again)\n",
      }),
      vscode.languages.registerDocumentLinkProvider(
        { scheme: RESULT_SCHEME },
        {
          provideDocumentLinks: (doc) => {
            const result = this.results.get(doc.uri.toString());
            if (result === undefined) {
              return [];
            }
            return frameLinks(result).map((l) => {
              const link = new vscode.DocumentLink(toRange(l.range), vscode.Uri.parse(l.targetWithFragment));
              link.tooltip = l.tooltip;
              return link;
            });
          },
        },
      ),
      vscode.languages.registerFoldingRangeProvider(
        { scheme: RESULT_SCHEME },
        {
          provideFoldingRanges: (doc) => {
            const result = this.results.get(doc.uri.toString());
            return result === undefined ? [] : ignoredFoldingRanges(result).map((r) => new vscode.FoldingRange(r.start, r.end));
          },
        },
      ),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === RESULT_SCHEME) {
          this.results.delete(doc.uri.toString());
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const e of editors) {
          if (e.document.uri.scheme === RESULT_SCHEME) {
            this.decorate(e);
          }
        }
      }),
    ];
  }

  /** Symbolicates `text`; when frames name a file that several bundles could be, asks once per file which one
   * (`chosen` answers instead, for tests), then asks the server again with the choices. */
  async symbolicateText(text: string, from: vscode.Uri | undefined, title: string, chosen?: Record<string, string>): Promise<Symbolicated | undefined> {
    if (text.trim() === "") {
      void vscode.window.showInformationMessage("Source Map: nothing to symbolicate (empty text).");
      return undefined;
    }
    let result: SymbolicateResult;
    const params: SymbolicateParams = from?.scheme === "file" ? { text, uri: code2Protocol(from) } : { text };
    const ask = (p: SymbolicateParams): Thenable<SymbolicateResult> =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Symbolicating…" }, () => this.server.request<SymbolicateResult>(SYMBOLICATE, p));
    try {
      result = await ask(params);
      const ambiguous = result.ambiguous ?? [];
      if (ambiguous.length > 0) {
        const bundles: Record<string, string> = {};
        for (const a of ambiguous) {
          const pick =
            chosen?.[a.file] ??
            (await pickBundle(`Which build produced this trace? ${a.candidates.length} bundles are named ${path.basename(a.file.split(/[?#]/)[0] ?? a.file)}`, a.candidates));
          if (pick !== undefined) {
            bundles[a.file] = pick;
          }
        }
        if (Object.keys(bundles).length > 0) {
          result = await ask({ ...params, bundles });
        }
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`Source Map: symbolicate failed: ${errorText(e)}`);
      return undefined;
    }
    if (result.frames.length === 0) {
      void vscode.window.showInformationMessage(
        "Source Map: no stack frames found in the text (V8, Safari/JSC, Firefox, Hermes, React Native and Metro JSON traces are read).",
      );
      return undefined;
    }
    this.count++;
    const safe = title.replace(/[\\/:*?"<>|#%]/g, "_");
    const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${safe} (symbolicated ${this.count}).log` });
    this.results.set(uri.toString(), result);
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    this.decorate(editor);
    const folds = ignoredFoldingRanges(result);
    if (folds.length > 0) {
      await this.foldRuns(editor, folds);
    }
    const s = summarize(result);
    if (s.frames > 0 && s.mapped === 0) {
      void vscode.window.showWarningMessage(
        "Source Map: no frame could be mapped. Open the bundle in this workspace, or point `sourcemap.maps` at its map.",
      );
    }
    return { uri: uri.toString(), result };
  }

  /** Folds the runs of ignore-listed frames. The folding ranges come from the provider above, asynchronously after
   * the editor opens: retry until the lines under each run's first are hidden (visibleRanges skip folded lines). */
  private async foldRuns(editor: vscode.TextEditor, folds: Array<{ start: number; end: number }>): Promise<void> {
    const hidden = (line: number): boolean => !editor.visibleRanges.some((r) => r.start.line <= line && line <= r.end.line);
    for (let attempt = 0; attempt < 20; attempt++) {
      if (vscode.window.activeTextEditor !== editor) {
        return;
      }
      await vscode.commands.executeCommand("editor.fold", { selectionLines: folds.map((f) => f.start), levels: 1 });
      await new Promise((r) => setTimeout(r, 100));
      this.server.log.debug(`fold attempt ${attempt}: lang=${editor.document.languageId} visible=${JSON.stringify(editor.visibleRanges.map((v) => [v.start.line, v.end.line]))}`);
      // Before the editor is laid out visibleRanges can be empty: then nothing counts as folded yet.
      if (editor.visibleRanges.length > 0 && folds.every((f) => !hidden(f.start) && hidden(f.start + 1))) {
        return;
      }
    }
  }

  private decorate(editor: vscode.TextEditor): void {
    const result = this.results.get(editor.document.uri.toString());
    if (result === undefined) {
      return;
    }
    const last = editor.document.lineCount - 1;
    const options: vscode.DecorationOptions[] = ignoredLabels(result).map(({ line, label }) => ({
      range: editor.document.lineAt(Math.min(line, last)).range,
      hoverMessage: "On the map's ignore list (x_google_ignoreList): library or framework code.",
      renderOptions: { after: { contentText: label, color: new vscode.ThemeColor("editorCodeLens.foreground"), fontStyle: "italic" } },
    }));
    editor.setDecorations(this.dimmed, options);
    const unmapped: vscode.DecorationOptions[] = unmappedLabels(result).map(({ line, label, reason }) => ({
      range: editor.document.lineAt(Math.min(line, last)).range,
      hoverMessage: `This frame is as the trace printed it: ${reason}. Its position is in the bundle, not in an original source.`,
      renderOptions: { after: { contentText: label, color: new vscode.ThemeColor("editorWarning.foreground"), fontStyle: "italic" } },
    }));
    editor.setDecorations(this.unmapped, unmapped);
  }

  /** The selections of the active editor (its whole text when nothing is selected); the clipboard without one. */
  async symbolicateSelection(): Promise<Symbolicated | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      return this.symbolicateClipboard();
    }
    const doc = editor.document;
    const selected = editor.selections.filter((s) => !s.isEmpty).map((s) => doc.getText(s));
    const text = selected.length > 0 ? selected.join("\n") : doc.getText();
    return this.symbolicateText(text, doc.uri, path.basename(doc.uri.path) || "selection");
  }

  async symbolicateClipboard(): Promise<Symbolicated | undefined> {
    const text = await vscode.env.clipboard.readText();
    const active = vscode.window.activeTextEditor?.document.uri;
    const base = active?.scheme === "file" ? active : vscode.workspace.workspaceFolders?.[0]?.uri;
    return this.symbolicateText(text, base?.scheme === "file" ? base : undefined, "clipboard");
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
