// The VS Code client of sourcemap-ls: activation and wiring. Each feature is its own module over the language client
// (client.ts): the status bar, navigation, symbolicate, Show Map Info, Attach Source Map…, the composition view,
// Show Profile, virtual documents and terminal links; this file makes them and binds the commands of package.json to them.

import * as path from "node:path";
import * as vscode from "vscode";

import type { SourceMapExtension } from "./api";
import { attachSourceMap, registerAttachQuickFix, type AttachArgs } from "./attach";
import { ServerClient } from "./client";
import { CompositionView } from "./composition";
import type { runE2E as RunE2E } from "./e2e";
import { MapInfoReports } from "./mapInfo";
import { goToGenerated, goToOriginal, openAt, pickBundle, type GoToGeneratedArgs } from "./navigation";
import { ProfileView, REVEAL_PROFILE } from "./profile";
import { OriginalPositionStatus } from "./statusBar";
import { SymbolicateResults } from "./symbolicate";
import { StackTerminalLinks } from "./terminalLinks";
import { registerVirtualDocuments } from "./virtualDocuments";

let instance: SourceMapExtension | undefined;

/** Command arguments from a menu are the resource's URI, from other callers an options object (or nothing). */
function optionsArg<T extends object>(arg: unknown): T | undefined {
  return arg !== null && typeof arg === "object" && !(arg instanceof vscode.Uri) ? (arg as T) : undefined;
}

function registerCommands(ext: SourceMapExtension): vscode.Disposable[] {
  const { server, symbolicate, mapInfo, composition, profile } = ext;
  const c = vscode.commands;
  return [
    c.registerCommand("sourcemap.symbolicateSelection", () => symbolicate.symbolicateSelection()),
    c.registerCommand("sourcemap.symbolicateClipboard", () => symbolicate.symbolicateClipboard()),
    c.registerCommand("sourcemap.goToOriginal", () => goToOriginal(server)),
    c.registerCommand("sourcemap.goToGenerated", (args?: unknown) => goToGenerated(server, optionsArg<GoToGeneratedArgs>(args))),
    c.registerCommand("sourcemap.showMapInfo", () => mapInfo.show()),
    c.registerCommand("sourcemap.restartServer", () => server.restart()),
    c.registerCommand("sourcemap.showComposition", () => composition.show()),
    c.registerCommand("sourcemap.showProfile", (arg?: unknown) => profile.show(arg instanceof vscode.Uri ? arg : undefined)),
    // A profile's CodeLens in an original source.
    c.registerCommand(REVEAL_PROFILE, () => profile.reveal()),
    c.registerCommand("sourcemap.openServerPathSetting", () => server.openServerPathSetting()),
    c.registerCommand("sourcemap.attachSourceMap", (args?: AttachArgs | vscode.Uri) =>
      attachSourceMap(server.log, args instanceof vscode.Uri ? { bundle: args.toString() } : args),
    ),
    // The status bar item's click.
    c.registerCommand("sourcemap.openOriginalAt", (uri: string, line: number, character: number) => openAt(uri, line, character)),
  ];
}

export async function activate(context: vscode.ExtensionContext): Promise<SourceMapExtension> {
  const server = new ServerClient(context.extensionPath);
  const ext: SourceMapExtension = {
    server,
    status: new OriginalPositionStatus(server),
    symbolicate: new SymbolicateResults(server),
    mapInfo: new MapInfoReports(server),
    composition: new CompositionView(server),
    profile: new ProfileView(server),
    terminalLinks: new StackTerminalLinks({
      request: <R>(method: string, params: object) => server.request<R>(method, params),
      openAt,
      pickBundle,
      log: server.log,
    }),
  };
  instance = ext;
  context.subscriptions.push(
    server,
    ext.status,
    ext.symbolicate,
    ext.mapInfo,
    ext.composition,
    ext.profile,
    vscode.window.registerTerminalLinkProvider(ext.terminalLinks),
    registerAttachQuickFix(),
    ...registerVirtualDocuments(server),
    ...registerCommands(ext),
  );
  await server.start();
  for (const ms of [2000, 8000]) {
    const t = setTimeout(() => void server.recheckServerPath(), ms);
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
  await instance?.server.stop();
  instance = undefined;
}
