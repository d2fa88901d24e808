// The VS Code client of sourcemap-ls: starts the server over stdio for bundles, maps, logs and sourcemap-source:
// documents, and adds the commands, the status bar item and the virtual documents on top of its requests.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  DocumentSymbolRequest,
  LanguageClient,
  RevealOutputChannelOn,
  TransportKind,
  type DocumentSymbol,
  type LanguageClientOptions,
  type ServerOptions,
  type SymbolInformation,
} from "vscode-languageclient/node";

import { formatMapInfo, type ModuleInfo } from "./logic/mapInfo";
import { parseServerLogLine } from "./logic/serverLog";
import { resolveServerPath, type ServerPathResult } from "./logic/serverPath";
import {
  changeNeedsRestart,
  SERVER_SETTING_KEYS,
  toServerSettings,
  type ServerSettings,
} from "./logic/settings";
import { Debouncer, formatStatus, isBundlePath, originalLabel, type StatusView } from "./logic/status";
import {
  frameLinks,
  ignoredFoldingRanges,
  ignoredLabels,
  unmappedLabels,
  summarize,
} from "./logic/symbolicate";
import { isLoopbackUrl, mapsEntry, withEntry, type MapsEntry } from "./logic/attach";
import { describeBuildTime, newestFirst } from "./logic/buildTime";
import { COMPOSITION, CompositionTree, VIEW_ID, openSource, webviewHtml } from "./composition";
import { StackTerminalLinks } from "./terminalLinks";
import type { runE2E as RunE2E } from "./e2e";
import { extensionOf, languageForExtension, virtualUriToProtocol } from "./logic/virtualUri";
import {
  MAP_INFO,
  type MapInfo,
  GENERATED_POSITIONS,
  ORIGINAL_POSITION,
  SOURCE_CONTENT,
  SYMBOLICATE,
  VIRTUAL_SCHEME,
  type Location as PLocation,
  type CompositionResult,
  type OriginalPosition,
  type SymbolicateParams,
  type SymbolicateResult,
} from "./protocol";

export const RESULT_SCHEME = "sourcemap-symbolicated";
export const INFO_SCHEME = "sourcemap-info";

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform === "win32") {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  if (typeof e === "object" && e !== null && "message" in e) {
    return String((e as { message: unknown }).message);
  }
  return String(e);
}

/** VS Code URI → the string the server gets (sourcemap-source: URIs keep `map=…&source=…` readable). */
function code2Protocol(uri: vscode.Uri): string {
  return uri.scheme === VIRTUAL_SCHEME ? virtualUriToProtocol(uri) : uri.toString();
}

function toRange(r: { start: { line: number; character: number }; end: { line: number; character: number } }): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/** The diagnostic code of a bundle without a map (the server's), on which Attach Source Map… is offered. */
export const NO_SOURCE_MAP = "no-source-map";
/** The diagnostic code of a bundle whose map does not fit it (the server's): Attach Source Map… chooses another. */
export const MAP_MISMATCH = "map-mismatch";

export interface AttachArgs {
  /** The bundle (a file: URI string); default: the active editor's document. */
  bundle?: string;
  /** A map file path, or a loopback URL; default: asked (Quick Pick, file dialog, input box). */
  map?: string;
}

function diagnosticCode(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (c === undefined) {
    return undefined;
  }
  return typeof c === "object" ? String(c.value) : String(c);
}

export interface GoToGeneratedArgs {
  uri?: string;
  position?: { line: number; character: number };
  /** false: return the locations without a quick pick or a jump (tests). */
  reveal?: boolean;
}

export class SourceMapExtension implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly traceChannel: vscode.LogOutputChannel;
  client: LanguageClient | undefined;
  resolution: ServerPathResult | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly status: vscode.StatusBarItem;
  statusView: StatusView | undefined;
  private statusTarget: OriginalPosition | undefined;
  private statusSeq = 0;
  private readonly statusDebounce: Debouncer;
  private readonly results = new Map<string, SymbolicateResult>();
  private readonly infos = new Map<string, string>();
  private resultCount = 0;
  private readonly virtualChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly compositionTree = new CompositionTree();
  compositionPanel: vscode.WebviewPanel | undefined;
  private readonly dimmed: vscode.TextEditorDecorationType;
  /** Stack frames in the integrated terminal link to original sources. */
  readonly terminalLinks: StackTerminalLinks = new StackTerminalLinks(this);
  /** Frames of a symbolicated trace that stayed as printed (native, no mapping, no map). */
  private readonly unmapped: vscode.TextEditorDecorationType;

  constructor(readonly context: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel("Source Map Language Server", { log: true });
    this.traceChannel = vscode.window.createOutputChannel("Source Map Language Server Trace", { log: true });
    this.status = vscode.window.createStatusBarItem("sourcemap.originalPosition", vscode.StatusBarAlignment.Right, 100);
    this.status.name = "Source Map: original position";
    this.statusDebounce = new Debouncer(150, () => void this.updateStatus());
    this.dimmed = vscode.window.createTextEditorDecorationType({ opacity: "0.5" });
    this.unmapped = vscode.window.createTextEditorDecorationType({ fontStyle: "italic" });
    this.disposables.push(this.log, this.traceChannel, this.status, this.virtualChanged, this.dimmed, this.unmapped);
  }

  // ---- the language client ----

  settings(): ServerSettings {
    const c = vscode.workspace.getConfiguration("sourcemap");
    return toServerSettings((k) => c.get(k));
  }

  resolveServer(): ServerPathResult {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    return resolveServerPath({
      env: process.env,
      setting: vscode.workspace.getConfiguration("sourcemap").get<string>("server.path"),
      extensionPath: this.context.extensionPath,
      platform: process.platform,
      homeDir: os.homedir(),
      workspaceFolder: folder?.scheme === "file" ? folder.fsPath : undefined,
      isExecutable,
    });
  }

  /** The running client, starting it if needed; undefined when the server cannot be started. */
  async ready(): Promise<LanguageClient | undefined> {
    if (this.client?.isRunning() === true) {
      return this.client;
    }
    return this.start();
  }

  start(): Promise<LanguageClient | undefined> {
    if (this.starting === undefined) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    if (this.client !== undefined) {
      return this.client.isRunning() ? this.client : undefined;
    }
    const res = this.resolveServer();
    this.resolution = res;
    if (!res.ok) {
      this.log.error(res.message);
      this.log.info(`Looked for: ${res.tried.join(", ") || "(nothing)"}`);
      void vscode.window.showErrorMessage(res.message, "Open Settings", "Show Log").then((pick) => {
        if (pick === "Open Settings") {
          void this.openServerPathSetting();
        } else if (pick === "Show Log") {
          this.log.show();
        }
      });
      return undefined;
    }
    this.log.info(`Starting ${res.path} (from ${res.source})`);
    const serverOptions: ServerOptions = {
      command: res.path,
      transport: TransportKind.stdio,
      options: { env: { ...process.env } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "javascript" },
        { scheme: "file", pattern: "**/*.{js,mjs,cjs,bundle,jsbundle,map}" },
        { scheme: "file", language: "plaintext" },
        { scheme: "file", language: "log" },
        { scheme: "untitled", language: "log" },
        { scheme: "untitled", language: "plaintext" },
        { scheme: VIRTUAL_SCHEME },
      ],
      outputChannel: this.log,
      // The server's stderr, line by line, at each line's own level.
      stdioOptions: {
        stdout: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", (l) => channel.info(l));
        },
        stderr: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", (l) => {
            const { level, message } = parseServerLogLine(l);
            channel[level](message);
          });
        },
      },
      traceOutputChannel: this.traceChannel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The `sourcemap-source:` scheme is ours (a TextDocumentContentProvider): say so, or the server writes
      // `file:` copies for clients that cannot open it.
      initializationOptions: { ...this.settings(), sourcemapSourceScheme: true },
      diagnosticCollectionName: "sourcemap-ls",
      uriConverters: {
        code2Protocol,
        protocol2Code: (s: string) => vscode.Uri.parse(s),
      },
      middleware: {
        workspace: {
          // The server pulls the `sourcemap` section: answer with the mapped settings, not the raw VS Code object.
          configuration: async (params, token, next) => {
            const answer = await next(params, token);
            if (!Array.isArray(answer)) {
              return answer;
            }
            return params.items.map((item, i) => (item.section === "sourcemap" ? this.settings() : answer[i]));
          },
        },
      },
    };
    // Client id "sourcemap": vscode-languageclient reads the trace level from `sourcemap.trace.server`.
    const client = new LanguageClient("sourcemap", "Source Map Language Server", serverOptions, clientOptions);
    this.client = client;
    try {
      await client.start();
    } catch (e) {
      const msg = `sourcemap-ls (${res.path}) failed to start: ${errorText(e)}`;
      this.log.error(msg);
      void vscode.window.showErrorMessage(`${msg}. Check the binary, or set \`sourcemap.server.path\`.`, "Show Log").then((p) => {
        if (p !== undefined) {
          this.log.show();
        }
      });
      try {
        await client.dispose();
      } catch {
        // already down
      }
      this.client = undefined;
      return undefined;
    }
    this.log.info(`sourcemap-ls ${client.initializeResult?.serverInfo?.version ?? ""} is running`);
    this.statusDebounce.trigger();
    return client;
  }

  /** Settings may reach a starting window late (seen in remote windows: the server path setting was read as empty
   * at activation). Resolves the server again and restarts when the answer changed; returns whether it did. */
  async recheckServerPath(): Promise<boolean> {
    const before = this.resolution;
    if (before === undefined || this.starting !== undefined) {
      return false;
    }
    const now = this.resolveServer();
    const same = now.ok && before.ok ? now.path === before.path : now.ok === before.ok;
    if (same) {
      return false;
    }
    this.log.info(`The server path resolves differently now (${now.ok ? now.path : now.message}): restarting`);
    await this.restart();
    return true;
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c !== undefined) {
      try {
        await c.stop(5000);
      } catch (e) {
        this.log.warn(`stopping the server: ${errorText(e)}`);
      }
      try {
        await c.dispose();
      } catch {
        // stopped already
      }
    }
  }

  async restart(): Promise<ServerPathResult | undefined> {
    this.log.info("Restarting the server");
    await this.stop();
    await this.start();
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === VIRTUAL_SCHEME) {
        this.virtualChanged.fire(doc.uri);
      }
    }
    this.statusDebounce.trigger();
    return this.resolution;
  }

  async request<R>(method: string, params: object): Promise<R> {
    const client = await this.ready();
    if (client === undefined) {
      throw new Error(this.resolution?.ok === false ? this.resolution.message : "sourcemap-ls is not running");
    }
    return client.sendRequest<R>(method, params);
  }

  onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (changeNeedsRestart((s) => e.affectsConfiguration(s))) {
      void this.restart();
      return;
    }
    if (SERVER_SETTING_KEYS.some((k) => e.affectsConfiguration(k)) && this.client?.isRunning() === true) {
      const settings = this.settings();
      this.log.info(`Settings changed: ${JSON.stringify(settings)}`);
      void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { sourcemap: settings } });
      this.statusDebounce.trigger();
    }
  }

  // ---- status bar ----

  private async updateStatus(): Promise<void> {
    const seq = ++this.statusSeq;
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document;
    if (editor === undefined || doc === undefined || doc.uri.scheme !== "file" || !isBundlePath(doc.uri.fsPath) || this.client?.isRunning() !== true) {
      this.setStatus(undefined, undefined);
      return;
    }
    const pos = editor.selection.active;
    let answer: OriginalPosition | null = null;
    try {
      answer = await this.client.sendRequest<OriginalPosition | null>(ORIGINAL_POSITION, {
        textDocument: { uri: code2Protocol(doc.uri) },
        position: { line: pos.line, character: pos.character },
      });
    } catch {
      answer = null; // no map for this file: nothing to show
    }
    if (seq === this.statusSeq) {
      this.setStatus(formatStatus(answer, this.shownSource(answer)), answer ?? undefined);
    }
  }

  private setStatus(view: StatusView | undefined, target: OriginalPosition | undefined): void {
    this.statusView = view;
    this.statusTarget = target;
    if (view === undefined) {
      this.status.hide();
      return;
    }
    this.status.text = view.text;
    this.status.tooltip = view.tooltip;
    this.status.command =
      target?.uri !== null && target?.uri !== undefined
        ? { title: "Open original", command: "sourcemap.openOriginalAt", arguments: [target.uri, target.line, target.character] }
        : undefined;
    this.status.show();
  }

  /** Resolves when the status bar has been recomputed for the current cursor (tests). */
  async refreshStatus(): Promise<StatusView | undefined> {
    this.statusDebounce.cancel();
    await this.updateStatus();
    return this.statusView;
  }

  /** A source's workspace path when it resolved to a workspace file (else undefined: the map's string is shown). */
  shownSource(o: Pick<OriginalPosition, "uri"> | null): string | undefined {
    if (o?.uri === null || o?.uri === undefined) {
      return undefined;
    }
    const u = vscode.Uri.parse(o.uri);
    if (u.scheme !== "file" || vscode.workspace.getWorkspaceFolder(u) === undefined) {
      return undefined;
    }
    return vscode.workspace.asRelativePath(u, false);
  }

  // ---- commands ----

  /** Asks which of several same-named bundles (file: URIs) is meant: folder and build time, newest first. */
  async pickBundle(title: string, uris: string[]): Promise<string | undefined> {
    const builds = await buildTimes(uris);
    const items = newestFirst(
      uris.map((uri) => ({ uri, label: vscode.workspace.asRelativePath(vscode.Uri.parse(uri), false), ...builds.get(uri)! })),
    );
    const pick = await vscode.window.showQuickPick(
      items.map((i) => ({ label: i.label, detail: i.detail, uri: i.uri })),
      { title, placeHolder: "Pick the bundle (newest build first)", matchOnDetail: true, ignoreFocusOut: true },
    );
    return pick?.uri;
  }

  async openAt(uri: string, line: number, character: number): Promise<vscode.TextEditor> {
    const target = vscode.Uri.parse(uri);
    const pos = new vscode.Position(line, character);
    const doc = await vscode.workspace.openTextDocument(target);
    return vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preview: false });
  }

  async goToOriginal(): Promise<OriginalPosition | null | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      void vscode.window.showInformationMessage("Source Map: open a bundle and put the cursor on generated code.");
      return undefined;
    }
    const pos = editor.selection.active;
    let answer: OriginalPosition | null;
    try {
      answer = await this.request<OriginalPosition | null>(ORIGINAL_POSITION, {
        textDocument: { uri: code2Protocol(editor.document.uri) },
        position: { line: pos.line, character: pos.character },
      });
    } catch (e) {
      void vscode.window.showWarningMessage(`Source Map: ${errorText(e)}`);
      return undefined;
    }
    if (answer === null) {
      void vscode.window.showInformationMessage("Source Map: no mapping at this position.");
      return null;
    }
    if (answer.uri === null) {
      void vscode.window.showInformationMessage(
        `Source Map: ${originalLabel(answer)} is not available: no such local file and no sourcesContent in the map. Add a \`sourcemap.pathOverrides\` entry to point at it.`,
      );
      return answer;
    }
    await this.openAt(answer.uri, answer.line, answer.character);
    return answer;
  }

  async goToGenerated(args?: GoToGeneratedArgs): Promise<PLocation[] | undefined> {
    const editor = vscode.window.activeTextEditor;
    const uri = args?.uri ?? (editor !== undefined ? code2Protocol(editor.document.uri) : undefined);
    const position = args?.position ?? (editor !== undefined ? { line: editor.selection.active.line, character: editor.selection.active.character } : undefined);
    if (uri === undefined || position === undefined) {
      void vscode.window.showInformationMessage("Source Map: open an original source file and put the cursor on a line.");
      return undefined;
    }
    let locations: PLocation[];
    try {
      locations = await this.request<PLocation[]>(GENERATED_POSITIONS, { textDocument: { uri }, position });
    } catch (e) {
      void vscode.window.showWarningMessage(`Source Map: ${errorText(e)}`);
      return undefined;
    }
    if (args?.reveal === false) {
      return locations;
    }
    if (locations.length === 0) {
      void vscode.window.showInformationMessage(
        `Source Map: no bundle maps line ${position.line + 1} of this file. The maps searched are the workspace's *.map files and those its bundles name (sourceMappingURL or sourcemap.maps); node_modules and hidden folders are skipped.`,
      );
      return locations;
    }
    const only = locations.length === 1 ? locations[0] : undefined;
    if (only !== undefined) {
      await this.openAt(only.uri, only.range.start.line, only.range.start.character);
      return locations;
    }
    // Several bundles (an old build beside the new one, a debug and a release build): each with its build time.
    const builds = await buildTimes(locations.map((l) => l.uri));
    const bundles = builds.size;
    const items = newestFirst(
      locations.map((l) => {
        const u = vscode.Uri.parse(l.uri);
        return {
          label: `${path.basename(u.path)}:${l.range.start.line + 1}:${l.range.start.character + 1}`,
          description: vscode.workspace.asRelativePath(u, false),
          location: l,
          ...builds.get(l.uri)!,
        };
      }),
    );
    const pick = await vscode.window.showQuickPick(items, {
      title: bundles > 1 ? `Generated positions in ${bundles} bundles` : `Generated positions (${locations.length})`,
      placeHolder: bundles > 1 ? "Pick the bundle (newest build first)" : "Pick a generated position to open",
      matchOnDescription: true,
    });
    if (pick !== undefined) {
      await this.openAt(pick.location.uri, pick.location.range.start.line, pick.location.range.start.character);
    }
    return locations;
  }

  /** Symbolicates `text`; when frames name a file that several bundles could be, asks once per file which one
   * (`chosen` answers instead, for tests), then asks the server again with the choices. */
  async symbolicateText(
    text: string,
    from: vscode.Uri | undefined,
    title: string,
    chosen?: Record<string, string>,
  ): Promise<{ uri: string; result: SymbolicateResult } | undefined> {
    if (text.trim() === "") {
      void vscode.window.showInformationMessage("Source Map: nothing to symbolicate (empty text).");
      return undefined;
    }
    let result: SymbolicateResult;
    const params: SymbolicateParams = from?.scheme === "file" ? { text, uri: code2Protocol(from) } : { text };
    const ask = (p: SymbolicateParams): Thenable<SymbolicateResult> =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Symbolicating…" }, () => this.request<SymbolicateResult>(SYMBOLICATE, p));
    try {
      result = await ask(params);
      const ambiguous = result.ambiguous ?? [];
      if (ambiguous.length > 0) {
        const bundles: Record<string, string> = {};
        for (const a of ambiguous) {
          const pick =
            chosen?.[a.file] ??
            (await this.pickBundle(`Which build produced this trace? ${a.candidates.length} bundles are named ${path.basename(a.file.split(/[?#]/)[0] ?? a.file)}`, a.candidates));
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
    this.resultCount++;
    const safe = title.replace(/[\\/:*?"<>|#%]/g, "_");
    const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${safe} (symbolicated ${this.resultCount}).log` });
    this.results.set(uri.toString(), result);
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    this.decorateResult(editor);
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

  /** Folds the runs of ignore-listed frames. The folding ranges come from the provider below, asynchronously after
   * the editor opens: retry until the lines under each run's first are hidden (visibleRanges skip folded lines). */
  private async foldRuns(editor: vscode.TextEditor, folds: Array<{ start: number; end: number }>): Promise<void> {
    const hidden = (line: number): boolean => !editor.visibleRanges.some((r) => r.start.line <= line && line <= r.end.line);
    for (let attempt = 0; attempt < 20; attempt++) {
      if (vscode.window.activeTextEditor !== editor) {
        return;
      }
      await vscode.commands.executeCommand("editor.fold", { selectionLines: folds.map((f) => f.start), levels: 1 });
      await new Promise((r) => setTimeout(r, 100));
      this.log.debug(`fold attempt ${attempt}: lang=${editor.document.languageId} visible=${JSON.stringify(editor.visibleRanges.map((v) => [v.start.line, v.end.line]))}`);
      // Before the editor is laid out visibleRanges can be empty: then nothing counts as folded yet.
      if (editor.visibleRanges.length > 0 && folds.every((f) => !hidden(f.start) && hidden(f.start + 1))) {
        return;
      }
    }
  }

  private decorateResult(editor: vscode.TextEditor): void {
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

  async symbolicateSelection(): Promise<{ uri: string; result: SymbolicateResult } | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      return this.symbolicateClipboard();
    }
    const doc = editor.document;
    const selected = editor.selections.filter((s) => !s.isEmpty).map((s) => doc.getText(s));
    const text = selected.length > 0 ? selected.join("\n") : doc.getText();
    return this.symbolicateText(text, doc.uri, path.basename(doc.uri.path) || "selection");
  }

  async symbolicateClipboard(): Promise<{ uri: string; result: SymbolicateResult } | undefined> {
    const text = await vscode.env.clipboard.readText();
    const active = vscode.window.activeTextEditor?.document.uri;
    const base = active?.scheme === "file" ? active : vscode.workspace.workspaceFolders?.[0]?.uri;
    return this.symbolicateText(text, base?.scheme === "file" ? base : undefined, "clipboard");
  }

  async showMapInfo(): Promise<string | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.document.uri.scheme !== "file") {
      void vscode.window.showInformationMessage("Source Map: open a bundle to see its map.");
      return undefined;
    }
    const doc = editor.document;
    const uri = code2Protocol(doc.uri);
    let modules: ModuleInfo[] | undefined;
    let serverError: string | undefined;
    let cursor: string | undefined;
    let server: MapInfo | undefined;
    const client = await this.ready();
    if (client !== undefined) {
      const pos = editor.selection.active;
      try {
        const o = await client.sendRequest<OriginalPosition | null>(ORIGINAL_POSITION, {
          textDocument: { uri },
          position: { line: pos.line, character: pos.character },
        });
        cursor = o === null ? "no mapping" : `${originalLabel(o)}${o.name !== null ? ` (${o.name})` : ""}`;
      } catch (e) {
        serverError = errorText(e);
      }
      try {
        server = (await client.sendRequest<MapInfo | null>(MAP_INFO, { textDocument: { uri } })) ?? undefined;
      } catch (e) {
        serverError ??= errorText(e);
      }
      try {
        const symbols = await client.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
        modules = (symbols ?? []).map((s: DocumentSymbol | SymbolInformation) =>
          "range" in s
            ? { name: s.name, detail: s.detail, startLine: s.range.start.line }
            : { name: s.name, startLine: s.location.range.start.line },
        );
      } catch (e) {
        serverError ??= errorText(e);
      }
    } else {
      serverError = this.resolution?.ok === false ? this.resolution.message : "not running";
    }
    const diagnostics = vscode.languages
      .getDiagnostics(doc.uri)
      .filter((d) => d.source === undefined || d.source.includes("sourcemap"))
      .map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    const report = formatMapInfo({
      document: vscode.workspace.asRelativePath(doc.uri),
      server,
      displayPath: (p) => vscode.workspace.asRelativePath(p),
      modules,
      serverError,
      cursor,
      diagnostics,
    });
    const infoUri = vscode.Uri.from({ scheme: INFO_SCHEME, path: `/Map info - ${path.basename(doc.uri.fsPath)}.txt` });
    this.infos.set(infoUri.toString(), report);
    this.virtualChanged.fire(infoUri);
    const infoDoc = await vscode.workspace.openTextDocument(infoUri);
    await vscode.window.showTextDocument(infoDoc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    return report;
  }

  /** Source Map: Attach Source Map… — ties a bundle to a map the user picks (a file, or a loopback URL) through the
   * `sourcemap.maps` setting of this workspace, so it is remembered and every request uses it. */
  async attachSourceMap(args?: AttachArgs): Promise<MapsEntry | undefined> {
    const active = vscode.window.activeTextEditor?.document.uri;
    const bundle = args?.bundle !== undefined ? vscode.Uri.parse(args.bundle) : active;
    if (bundle === undefined || bundle.scheme !== "file") {
      void vscode.window.showInformationMessage("Source Map: open the bundle to attach a source map to.");
      return undefined;
    }
    const map = args?.map ?? (await this.askForMap(bundle));
    if (map === undefined) {
      return undefined;
    }
    const config = vscode.workspace.getConfiguration("sourcemap");
    if (isLoopbackUrl(map) && config.get<boolean>("devServer") !== true) {
      const turnOn = args?.map !== undefined ? "Turn On" : await vscode.window.showWarningMessage(
        "Source Map: fetching a map from a loopback URL needs sourcemap.devServer, which is off.",
        "Turn On",
        "Cancel",
      );
      if (turnOn !== "Turn On") {
        return undefined;
      }
      await config.update("devServer", true, vscode.ConfigurationTarget.Workspace);
    }
    const folder = vscode.workspace.getWorkspaceFolder(bundle)?.uri.fsPath;
    const entry = mapsEntry(folder, bundle.fsPath, map);
    const current = config.inspect<Record<string, string>>("maps")?.workspaceValue;
    const target = vscode.workspace.workspaceFolders !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await config.update("maps", withEntry(current, entry), target);
    this.log.info(`Attached ${entry.map} to ${entry.glob} (sourcemap.maps)`);
    if (args?.map === undefined) {
      void vscode.window.showInformationMessage(
        `Source Map: ${path.basename(bundle.fsPath)} now uses ${entry.map}. Saved in ${target === vscode.ConfigurationTarget.Workspace ? "this workspace's" : "your user"} settings (sourcemap.maps).`,
      );
    }
    return entry;
  }

  /** The map to attach: a .map file found nearby, another file (dialog), or a loopback URL. */
  private async askForMap(bundle: vscode.Uri): Promise<string | undefined> {
    const dir = vscode.Uri.file(path.dirname(bundle.fsPath));
    const nearby = (await vscode.workspace.findFiles("**/*.map", "**/node_modules/**", 200))
      .map((u) => u.fsPath)
      // The bundle's own name first (app.js → app.js.map, app.map), then the nearest.
      .map((m) => ({ m, named: path.basename(m).startsWith(path.basename(bundle.fsPath).replace(/\.(js|mjs|cjs|bundle|jsbundle)$/, "")) ? 0 : 1 }))
      .sort((a, b) => a.named - b.named || distance(a.m, bundle.fsPath) - distance(b.m, bundle.fsPath) || a.m.localeCompare(b.m))
      .map((x) => x.m)
      .slice(0, 8);
    type Item = vscode.QuickPickItem & { action: "file" | "browse" | "url"; map?: string };
    const items: Item[] = [
      ...nearby.map((m): Item => ({ label: `$(file) ${path.basename(m)}`, description: vscode.workspace.asRelativePath(m, false), action: "file", map: m })),
      { label: "$(folder-opened) Choose a .map file…", action: "browse" },
      { label: "$(globe) Enter a loopback URL…", description: "a dev server on localhost (needs sourcemap.devServer)", action: "url" },
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: `Attach a source map to ${path.basename(bundle.fsPath)}`,
      placeHolder: "The map's file (maps in the workspace, nearest first), or a loopback URL",
      matchOnDescription: true,
      ignoreFocusOut: true,
    });
    if (pick === undefined) {
      return undefined;
    }
    if (pick.action === "file") {
      return pick.map;
    }
    if (pick.action === "browse") {
      const chosen = await vscode.window.showOpenDialog({
        defaultUri: dir,
        canSelectMany: false,
        openLabel: "Attach",
        title: `Source map for ${path.basename(bundle.fsPath)}`,
        filters: { "Source maps": ["map", "json"], "All files": ["*"] },
      });
      return chosen?.[0]?.fsPath;
    }
    return vscode.window.showInputBox({
      title: `Source map URL for ${path.basename(bundle.fsPath)}`,
      prompt: "A loopback http:// URL that serves the map (localhost, 127.0.0.1 or [::1])",
      value: "http://localhost:8081/index.map",
      ignoreFocusOut: true,
      validateInput: (v) => (isLoopbackUrl(v) ? undefined : "Only http:// URLs on localhost, 127.0.0.1 or [::1] are fetched."),
    });
  }

  /** Opens the settings editor on `sourcemap.server.path`: in a remote window, on the Remote tab, where this
   * machine-overridable setting of the remote extension host is set. */
  async openServerPathSetting(): Promise<string> {
    const query = "@id:sourcemap.server.path";
    if (vscode.env.remoteName !== undefined) {
      try {
        await vscode.commands.executeCommand("workbench.action.openRemoteSettings", { query });
        return "workbench.action.openRemoteSettings";
      } catch (e) {
        this.log.debug(`openRemoteSettings: ${errorText(e)}`);
      }
    }
    await vscode.commands.executeCommand("workbench.action.openSettings", query);
    return "workbench.action.openSettings";
  }

  /** Source Map: Show Bundle Composition — the active bundle's treemap in a webview and its tree in the Explorer. */
  async showComposition(): Promise<CompositionResult | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.document.uri.scheme !== "file") {
      void vscode.window.showInformationMessage("Source Map: open a bundle to see what it is made of.");
      return undefined;
    }
    const uri = editor.document.uri;
    let result: CompositionResult | null;
    try {
      result = await this.request<CompositionResult | null>(COMPOSITION, { textDocument: { uri: code2Protocol(uri) } });
    } catch (e) {
      void vscode.window.showErrorMessage(`Source Map: composition failed: ${errorText(e)}`);
      return undefined;
    }
    if (result === null) {
      void vscode.window.showInformationMessage(`Source Map: ${path.basename(uri.fsPath)} has no source map.`);
      return undefined;
    }
    const r = result;
    this.compositionTree.set(r);
    const title = `Composition: ${path.basename(uri.fsPath)}`;
    if (this.compositionPanel === undefined) {
      const panel = vscode.window.createWebviewPanel("sourcemapComposition", title, vscode.ViewColumn.Beside, { enableScripts: true });
      panel.onDidDispose(() => (this.compositionPanel = undefined));
      this.compositionPanel = panel;
    }
    const panel = this.compositionPanel;
    panel.title = title;
    panel.webview.html = webviewHtml(r);
    this.compositionMessages?.dispose();
    this.compositionMessages = panel.webview.onDidReceiveMessage((m: { type?: string; source?: string }) => {
      if (m.type === "open" && typeof m.source === "string") void openSource(r, m.source);
    });
    panel.reveal(vscode.ViewColumn.Beside, true);
    return r;
  }

  private compositionMessages: vscode.Disposable | undefined;

  // ---- registration ----

  register(): void {
    const d = this.disposables;
    const c = vscode.commands;
    d.push(
      c.registerCommand("sourcemap.symbolicateSelection", () => this.symbolicateSelection()),
      c.registerCommand("sourcemap.symbolicateClipboard", () => this.symbolicateClipboard()),
      c.registerCommand("sourcemap.goToOriginal", () => this.goToOriginal()),
      c.registerCommand("sourcemap.goToGenerated", (args?: GoToGeneratedArgs) =>
        this.goToGenerated(args !== null && typeof args === "object" && !(args instanceof vscode.Uri) ? args : undefined),
      ),
      c.registerCommand("sourcemap.showMapInfo", () => this.showMapInfo()),
      c.registerCommand("sourcemap.restartServer", () => this.restart()),
      c.registerCommand("sourcemap.showComposition", () => this.showComposition()),
      c.registerCommand("sourcemap.openServerPathSetting", () => this.openServerPathSetting()),
      c.registerCommand("sourcemap.attachSourceMap", (args?: AttachArgs | vscode.Uri) =>
        this.attachSourceMap(args instanceof vscode.Uri ? { bundle: args.toString() } : args),
      ),
      vscode.languages.registerCodeActionsProvider(
        { scheme: "file", pattern: "**/*.{js,mjs,cjs,bundle,jsbundle}" },
        {
          provideCodeActions: (doc, _range, context) =>
            context.diagnostics
              .filter((d) => diagnosticCode(d) === NO_SOURCE_MAP || diagnosticCode(d) === MAP_MISMATCH)
              .slice(0, 1)
              .map((d) => {
                const action = new vscode.CodeAction("Attach Source Map…", vscode.CodeActionKind.QuickFix);
                action.diagnostics = [d];
                action.isPreferred = true;
                action.command = { title: "Attach Source Map…", command: "sourcemap.attachSourceMap", arguments: [{ bundle: doc.uri.toString() }] };
                return action;
              }),
        },
        { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
      ),
      vscode.window.registerTreeDataProvider(VIEW_ID, this.compositionTree),
      vscode.window.registerTerminalLinkProvider(this.terminalLinks),
      c.registerCommand("sourcemap.openOriginalAt", (uri: string, line: number, character: number) => this.openAt(uri, line, character)),
    );

    // sourcemap-source: sources that exist only in the map's sourcesContent, asked from the server.
    const ext = this;
    d.push(
      vscode.workspace.registerTextDocumentContentProvider(VIRTUAL_SCHEME, {
        onDidChange: this.virtualChanged.event,
        async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
          try {
            const answer = await ext.request<{ text: string }>(SOURCE_CONTENT, { uri: code2Protocol(uri) });
            return answer.text;
          } catch (e) {
            ext.log.error(`sourceContent ${uri.toString(true)}: ${errorText(e)}`);
            throw new Error(`sourcemap-ls could not give this source: ${errorText(e)}`);
          }
        },
      }),
      vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, {
        provideTextDocumentContent: (uri) => this.results.get(uri.toString())?.text ?? "(this result is no longer available: symbolicate again)\n",
      }),
      vscode.workspace.registerTextDocumentContentProvider(INFO_SCHEME, {
        onDidChange: this.virtualChanged.event,
        provideTextDocumentContent: (uri) => this.infos.get(uri.toString()) ?? "",
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
      vscode.workspace.onDidOpenTextDocument((doc) => {
        // Language mode of a virtual source by its extension, when VS Code did not pick one.
        if (doc.uri.scheme === VIRTUAL_SCHEME && doc.languageId === "plaintext") {
          const lang = languageForExtension(extensionOf(doc.uri.path));
          if (lang !== undefined) {
            void vscode.languages.setTextDocumentLanguage(doc, lang).then(undefined, () => undefined);
          }
        }
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === RESULT_SCHEME) {
          this.results.delete(doc.uri.toString());
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const e of editors) {
          if (e.document.uri.scheme === RESULT_SCHEME) {
            this.decorateResult(e);
          }
        }
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.statusDebounce.trigger()),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) {
          this.statusDebounce.trigger();
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
    );
  }

  dispose(): void {
    this.statusDebounce.cancel();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** Each distinct bundle's build time (its modification time) and how a Quick Pick shows it. */
async function buildTimes(uris: string[]): Promise<Map<string, { mtimeMs: number | undefined; detail: string }>> {
  const now = Date.now();
  const out = new Map<string, { mtimeMs: number | undefined; detail: string }>();
  for (const uri of new Set(uris)) {
    let mtimeMs: number | undefined;
    try {
      mtimeMs = (await vscode.workspace.fs.stat(vscode.Uri.parse(uri))).mtime;
    } catch {
      mtimeMs = undefined;
    }
    out.set(uri, { mtimeMs, detail: mtimeMs !== undefined ? describeBuildTime(mtimeMs, now) : "build time unknown" });
  }
  return out;
}

/** How far apart two paths are in the folder tree (shared leading folders count for nearness). */
function distance(a: string, b: string): number {
  const pa = path.dirname(a).split(path.sep);
  const pb = path.dirname(b).split(path.sep);
  let common = 0;
  while (common < pa.length && common < pb.length && pa[common] === pb[common]) {
    common++;
  }
  return pa.length + pb.length - 2 * common;
}

let instance: SourceMapExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<SourceMapExtension> {
  const ext = new SourceMapExtension(context);
  instance = ext;
  context.subscriptions.push(ext);
  ext.register();
  await ext.start();
  for (const ms of [2000, 8000]) {
    const t = setTimeout(() => void ext.recheckServerPath(), ms);
    context.subscriptions.push({ dispose: () => clearTimeout(t) });
  }
  const out = process.env.SOURCEMAP_E2E_OUT;
  if (out !== undefined && out !== "") {
    // Test mode (scripts/vscode-e2e): checks run inside the extension host and are written to `out` as JSON. The
    // runner is its own file (dist/e2e.js), loaded only here: the extension's bundle does not contain it.
    const e2e = require(path.join(__dirname, "e2e.js")) as { runE2E: typeof RunE2E };
    void e2e.runE2E(ext, out);
  }
  return ext;
}

export async function deactivate(): Promise<void> {
  await instance?.stop();
  instance = undefined;
}
