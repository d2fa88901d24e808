// Show Profile: "Source Map: Show Profile" sends a CPU profile (a V8 .cpuprofile, a Hermes sampling profile, a Chrome
// trace) to the server (`sourcemap/profile`) and shows its answer in a webview: the hottest original functions with
// their self and total time, grouped by function, file or package on request; a click on a row opens its original
// source at the line. While the panel is open, the original sources show each function's self time as a CodeLens at
// its line. The client reads nothing of the profile: the server opens the file and names every frame.

import * as crypto from "node:crypto";
import * as path from "node:path";
import * as vscode from "vscode";

import { code2Protocol, type ServerClient } from "./client";
import { errorText } from "./logic/errors";
import { inlineTimes, isGrouping, profileHtml, rowPlace, type InlineTime } from "./logic/profile";
import { openAt } from "./navigation";
import { PROFILE, VIRTUAL_SCHEME, type ProfileGrouping, type ProfileParams, type ProfileResult } from "./protocol";

/** The internal command of a CodeLens: shows the panel again. */
export const REVEAL_PROFILE = "sourcemap.revealProfile";

/** What the page said it drew (its `rendered` message). */
export interface RenderedPage {
  rows: number;
  first: string | null;
}

interface Shown {
  /** The profile file. */
  uri: vscode.Uri;
  /** The answer by function: what the inline times show, whatever the panel lists. */
  functions: ProfileResult;
  by: ProfileGrouping;
  /** The answer the panel lists now (`functions` itself when grouped by function). */
  listed: ProfileResult;
  /** The map the user chose for frames that name no file. */
  map?: vscode.Uri | undefined;
}

/** The document a command is about: a menu's URI, else the active editor's file, else the active tab's (a
 * .cpuprofile opens in VS Code's profile viewer, a custom editor, not a text editor). */
function targetOf(arg: vscode.Uri | undefined): vscode.Uri | undefined {
  if (arg !== undefined) {
    return arg;
  }
  const editor = vscode.window.activeTextEditor;
  if (editor !== undefined && editor.document.uri.scheme === "file") {
    return editor.document.uri;
  }
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputText) {
    return input.uri.scheme === "file" ? input.uri : undefined;
  }
  return undefined;
}

/** A location URI as VS Code writes it, so that it compares with a document's `uri.toString()`. */
function uriKey(uri: string): string {
  return vscode.Uri.parse(uri).toString();
}

export class ProfileView implements vscode.Disposable, vscode.CodeLensProvider {
  panel: vscode.WebviewPanel | undefined;
  shown: Shown | undefined;
  /** What the panel's page last reported it drew (the e2e reads it). */
  rendered: RenderedPage | undefined;
  private times = new Map<string, InlineTime[]>();
  /** The CodeLens provider: registered while the panel is open. */
  private lenses: vscode.Disposable | undefined;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly renderedEvent = new vscode.EventEmitter<RenderedPage>();
  readonly onDidRender = this.renderedEvent.event;

  constructor(private readonly server: ServerClient) {}

  private async ask(uri: vscode.Uri, by: ProfileGrouping, map?: vscode.Uri): Promise<ProfileResult | undefined> {
    const params: ProfileParams = { textDocument: { uri: code2Protocol(uri) }, by };
    if (map !== undefined) {
      params.map = code2Protocol(map);
    }
    try {
      return await this.server.request<ProfileResult>(PROFILE, params);
    } catch (e) {
      void vscode.window.showErrorMessage(`Source Map: cannot show ${path.basename(uri.fsPath)} as a profile: ${errorText(e)}`);
      return undefined;
    }
  }

  /** Show Profile: the profile's rows by function in the panel and their self times in the original sources. */
  async show(arg?: vscode.Uri, map?: vscode.Uri): Promise<ProfileResult | undefined> {
    const uri = targetOf(arg) ?? this.shown?.uri;
    if (uri === undefined) {
      void vscode.window.showInformationMessage("Source Map: open a CPU profile (.cpuprofile, a Hermes profile .json, a Chrome trace) to show it.");
      return undefined;
    }
    const functions = await this.ask(uri, "function", map);
    if (functions === undefined) {
      return undefined;
    }
    if (functions.needsMap) {
      void this.offerMap(uri);
    }
    this.shown = { uri, functions, by: "function", listed: functions, map };
    this.times = inlineTimes(functions.functions, uriKey);
    this.render();
    this.lensesChanged.fire();
    return functions;
  }

  /** A Hermes bytecode profile names no file: the server maps its frames only through the map the user names. */
  private async offerMap(uri: vscode.Uri): Promise<void> {
    const choose = "Choose Source Map…";
    const answer = await vscode.window.showWarningMessage(
      `Source Map: ${path.basename(uri.fsPath)} has frames at bytecode addresses, which name no file: choose its Hermes source map to map them.`,
      choose,
    );
    if (answer !== choose) {
      return;
    }
    const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { "Source maps": ["map"] }, openLabel: "Use this map" });
    const map = picked?.[0];
    if (map !== undefined) {
      await this.show(uri, map);
    }
  }

  /** The panel's rows grouped `by` (the server groups them); the inline times stay by function. */
  async group(by: ProfileGrouping): Promise<ProfileResult | undefined> {
    const shown = this.shown;
    if (shown === undefined) {
      return undefined;
    }
    const listed = by === "function" ? shown.functions : await this.ask(shown.uri, by, shown.map);
    if (listed === undefined || this.shown !== shown) {
      return undefined;
    }
    this.shown = { ...shown, by, listed };
    this.render();
    return listed;
  }

  /** A row's click: its original source at its line, beside the panel. */
  async openRow(index: number): Promise<vscode.TextEditor | undefined> {
    const row = this.shown?.listed.functions[index];
    if (row?.location === null || row?.location === undefined) {
      if (row !== undefined) {
        void vscode.window.showInformationMessage(`Source Map: ${rowPlace(row) || "this row"} is not available locally or in the map.`);
      }
      return undefined;
    }
    const column = this.panel?.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
    const start = row.location.range.start;
    return openAt(row.location.uri, start.line, start.character, column);
  }

  reveal(): void {
    this.panel?.reveal(undefined, true);
  }

  private render(): void {
    const shown = this.shown;
    if (shown === undefined) {
      return;
    }
    const title = `Profile: ${path.basename(shown.uri.fsPath)}`;
    if (this.panel === undefined) {
      const panel = vscode.window.createWebviewPanel("sourcemapProfile", title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true });
      panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m));
      panel.onDidDispose(() => this.closed());
      this.panel = panel;
      this.lenses = vscode.languages.registerCodeLensProvider([{ scheme: "file" }, { scheme: VIRTUAL_SCHEME }], this);
    }
    this.panel.title = title;
    this.rendered = undefined;
    this.panel.webview.html = profileHtml(shown.listed, { title: path.basename(shown.uri.fsPath), by: shown.by, nonce: crypto.randomBytes(16).toString("base64") });
    this.panel.reveal(undefined, true);
  }

  private async onMessage(m: unknown): Promise<void> {
    if (m === null || typeof m !== "object") {
      return;
    }
    const msg = m as { type?: unknown; row?: unknown; by?: unknown; rows?: unknown; first?: unknown };
    if (msg.type === "open" && typeof msg.row === "number") {
      await this.openRow(msg.row);
    } else if (msg.type === "group" && isGrouping(msg.by)) {
      await this.group(msg.by);
    } else if (msg.type === "rendered" && typeof msg.rows === "number") {
      this.rendered = { rows: msg.rows, first: typeof msg.first === "string" ? msg.first : null };
      this.renderedEvent.fire(this.rendered);
    }
  }

  /** The panel was closed: the inline times go with it. */
  private closed(): void {
    this.panel = undefined;
    this.shown = undefined;
    this.rendered = undefined;
    this.times = new Map();
    this.lenses?.dispose();
    this.lenses = undefined;
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const times = this.times.get(document.uri.toString()) ?? [];
    const name = this.shown !== undefined ? path.basename(this.shown.uri.fsPath) : "the profile";
    return times
      .filter((t) => t.line < document.lineCount)
      .map((t) => {
        const range = document.lineAt(t.line).range;
        return new vscode.CodeLens(new vscode.Range(range.start, range.start), {
          title: t.title,
          tooltip: `Self and total time in ${name} (Source Map: Show Profile). Click to show the profile.`,
          command: REVEAL_PROFILE,
        });
      });
  }

  dispose(): void {
    this.panel?.dispose();
    this.lenses?.dispose();
    this.lensesChanged.dispose();
    this.renderedEvent.dispose();
  }
}
