// The language client: which sourcemap-ls binary to run (logic/serverPath.ts decides), starting it over stdio, its
// log, restarting it when the binary or a restart-only setting changes, and sending it the other settings. Every
// feature reaches the server through `request`, which starts the server when it is down.

import * as os from "node:os";
import * as readline from "node:readline";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  RevealOutputChannelOn,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";

import { errorText } from "./logic/errors";
import { isExecutable } from "./logic/executable";
import { parseServerLogLine } from "./logic/serverLog";
import { resolveServerPath, type ServerPathResult } from "./logic/serverPath";
import { changeNeedsRestart, SERVER_SETTING_KEYS, toServerSettings, type ServerSettings } from "./logic/settings";
import { virtualUriToProtocol } from "./logic/virtualUri";
import { VIRTUAL_SCHEME } from "./protocol";

/** VS Code URI → the string the server gets (sourcemap-source: URIs keep `map=…&source=…` readable). */
export function code2Protocol(uri: vscode.Uri): string {
  return uri.scheme === VIRTUAL_SCHEME ? virtualUriToProtocol(uri) : uri.toString();
}

/** What changed on the server's side: views that show its answers ask again. */
export type ServerChange = "started" | "restarted" | "settings";

export class ServerClient implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  private readonly traceChannel: vscode.LogOutputChannel;
  client: LanguageClient | undefined;
  resolution: ServerPathResult | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private readonly changed = new vscode.EventEmitter<ServerChange>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly extensionPath: string) {
    this.log = vscode.window.createOutputChannel("Source Map Language Server", { log: true });
    this.traceChannel = vscode.window.createOutputChannel("Source Map Language Server Trace", { log: true });
    this.disposables = [
      this.log,
      this.traceChannel,
      this.changed,
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
    ];
  }

  settings(): ServerSettings {
    const c = vscode.workspace.getConfiguration("sourcemap");
    return toServerSettings((k) => c.get(k));
  }

  resolveServer(): ServerPathResult {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    return resolveServerPath({
      env: process.env,
      setting: vscode.workspace.getConfiguration("sourcemap").get<string>("server.path"),
      extensionPath: this.extensionPath,
      platform: process.platform,
      homeDir: os.homedir(),
      workspaceFolder: folder?.scheme === "file" ? folder.fsPath : undefined,
      isExecutable: (file) => isExecutable(file),
    });
  }

  /** The client when it is running, without starting it: for views that show nothing rather than start a server. */
  running(): LanguageClient | undefined {
    return this.client?.isRunning() === true ? this.client : undefined;
  }

  /** The running client, starting it if needed; undefined when the server cannot be started. */
  async ready(): Promise<LanguageClient | undefined> {
    return this.running() ?? this.start();
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
        // CSS bundles (sass, less, postcss, lightningcss, tailwind output) map as scripts do.
        { scheme: "file", language: "css" },
        { scheme: "file", pattern: "**/*.{js,mjs,cjs,bundle,jsbundle,css,map}" },
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
    this.changed.fire("started");
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
    this.changed.fire("restarted");
    return this.resolution;
  }

  async request<R>(method: string, params: object): Promise<R> {
    const client = await this.ready();
    if (client === undefined) {
      throw new Error(this.resolution?.ok === false ? this.resolution.message : "sourcemap-ls is not running");
    }
    return client.sendRequest<R>(method, params);
  }

  /** Why requests cannot be answered now (the server could not be started), for reports that say so. */
  notRunningReason(): string {
    return this.resolution?.ok === false ? this.resolution.message : "not running";
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (changeNeedsRestart((s) => e.affectsConfiguration(s))) {
      void this.restart();
      return;
    }
    const client = this.running();
    if (SERVER_SETTING_KEYS.some((k) => e.affectsConfiguration(k)) && client !== undefined) {
      const settings = this.settings();
      this.log.info(`Settings changed: ${JSON.stringify(settings)}`);
      void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { sourcemap: settings } });
      this.changed.fire("settings");
    }
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

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
