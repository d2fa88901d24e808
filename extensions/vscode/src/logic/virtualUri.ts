// `sourcemap-source:///<path>?map=<map>&source=<id>` URIs as the server writes them. VS Code's `Uri.toString()`
// percent-encodes `=` and `&` in a query, which would hide `map` and `source` from the server; this writes them back
// with only the values encoded.

/** Percent-encodes what the server's path set encodes (controls, space, `?`, `#`, `%`, `"`, and non-ASCII). */
export function encodeVirtualPath(path: string): string {
  let out = "";
  for (const ch of path) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f || code > 0x7e || ch === " " || ch === "?" || ch === "#" || ch === "%" || ch === '"') {
      out += encodeURIComponent(ch);
    } else {
      out += ch;
    }
  }
  return out;
}

/** The query (decoded, as `Uri.query` holds it) re-encoded: `map=<value>&source=<id>`, each value encoded. */
export function encodeVirtualQuery(query: string): string {
  const m = /^map=(.*)&source=(\d+)$/s.exec(query);
  if (m !== null) {
    return `map=${encodeURIComponent(m[1] ?? "")}&source=${m[2] ?? ""}`;
  }
  // Unknown shape: encode each value, keep the separators.
  return query
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      return eq < 0 ? encodeURIComponent(pair) : `${encodeURIComponent(pair.slice(0, eq))}=${encodeURIComponent(pair.slice(eq + 1))}`;
    })
    .join("&");
}

/** The URI string for the server, from a decoded `Uri`'s parts. */
export function virtualUriToProtocol(parts: { scheme: string; authority: string; path: string; query: string; fragment: string }): string {
  let s = `${parts.scheme}://${parts.authority}${encodeVirtualPath(parts.path)}`;
  if (parts.query !== "") {
    s += `?${encodeVirtualQuery(parts.query)}`;
  }
  if (parts.fragment !== "") {
    s += `#${encodeURIComponent(parts.fragment)}`;
  }
  return s;
}

/** The file extension of a virtual document's path (`.js`), lower case, or "" when it has none. */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/** A language id for a virtual document by its extension, for when VS Code guesses none (plaintext). */
export function languageForExtension(ext: string): string | undefined {
  const table: Record<string, string> = {
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".json": "json",
    ".css": "css",
    ".scss": "scss",
    ".less": "less",
    ".html": "html",
    ".vue": "vue",
    ".svelte": "svelte",
    ".coffee": "coffeescript",
    ".dart": "dart",
    ".elm": "elm",
    ".rs": "rust",
    ".c": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".h": "c",
    ".md": "markdown",
  };
  return table[ext];
}
