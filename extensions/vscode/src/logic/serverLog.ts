// sourcemap-ls logs to stderr with tracing's format (`2026-01-01T00:00:00.000000Z  INFO target: message`). The log
// output channel gets each line at its own level (the language client would log every stderr line as an error),
// without the server's timestamp (the channel adds one).

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error";

const ANSI = /\u001b\[[0-9;]*m/g;
const TRACING = /^(?:\d{4}-\d\d-\d\dT[\d:.]+Z?\s+)?(TRACE|DEBUG|INFO|WARN|ERROR)\s+(.*)$/;

export function parseServerLogLine(raw: string): { level: LogLevel; message: string } {
  const line = raw.replace(ANSI, "").trimEnd();
  const m = TRACING.exec(line);
  if (m !== null) {
    return { level: (m[1] ?? "INFO").toLowerCase() as LogLevel, message: m[2] ?? "" };
  }
  if (/panicked at|^error:|^Error:/.test(line)) {
    return { level: "error", message: line };
  }
  return { level: "info", message: line };
}
