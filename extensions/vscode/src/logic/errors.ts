// The message of whatever a request or a start threw: an Error, a JSON-RPC error object (`{code, message}`, which
// vscode-languageclient rejects with), or anything else.

export function errorText(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  if (typeof e === "object" && e !== null && "message" in e) {
    return String((e as { message: unknown }).message);
  }
  return String(e);
}
