//! The server's custom requests, the VS Code client's `protocol.ts` and docs/editors.md say the same thing (after
//! rust-analyzer's `xtask/src/tidy.rs`, which holds `lsp/ext.rs` to `lsp-extensions.md`): every method the server
//! registers is named by the client and documented, and each answer's fields as serde writes them are the fields the
//! client's interface declares, both ways. Read from the sources, so a field added on one side only fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The methods of `custom_requests!`'s table.
fn methods() -> Vec<String> {
    let table = read("server/sourcemap-ls/src/lsp/custom_requests.rs");
    let mut out = Vec::new();
    for part in table.split("\"sourcemap/").skip(1) {
        let name = part.split('"').next().unwrap();
        out.push(format!("sourcemap/{name}"));
    }
    out
}

/// The field names serde writes for `struct name` in `text` (`rename_all = "camelCase"`, `rename`, `skip`,
/// `flatten`: a flattened field's own struct, found in the same text, gives its fields).
fn rust_fields(text: &str, name: &str) -> BTreeSet<String> {
    let start = text
        .find(&format!("struct {name} {{"))
        .unwrap_or_else(|| panic!("no `struct {name}`"));
    let head = &text[..start];
    let attrs_from = head.rfind("\n\n").unwrap_or(0);
    let camel = head[attrs_from..].contains("rename_all = \"camelCase\"");
    let body = &text[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find("\n}").unwrap()];
    let mut out = BTreeSet::new();
    let mut attrs = String::new();
    for line in body.lines().map(str::trim) {
        if line.starts_with("#[") {
            attrs.push_str(line);
            continue;
        }
        if line.starts_with("//") || line.is_empty() {
            continue;
        }
        let unqualified = line.strip_prefix("pub ").unwrap_or(line);
        let Some(field) = unqualified
            .split_once(':')
            .map(|(f, _)| f)
            .filter(|f| f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        else {
            attrs.clear();
            continue;
        };
        let ty = line
            .split_once(':')
            .map(|(_, t)| t.trim().trim_end_matches(','))
            .unwrap_or("");
        if attrs.contains("skip") && !attrs.contains("skip_serializing_if") {
        } else if attrs.contains("flatten") {
            let inner = ty.trim_start_matches("Option<").trim_end_matches('>');
            out.extend(rust_fields(text, inner));
        } else if let Some(renamed) = attrs.split("rename = \"").nth(1) {
            out.insert(renamed.split('"').next().unwrap().to_string());
        } else if camel {
            out.insert(camel_case(field));
        } else {
            out.insert(field.to_string());
        }
        attrs.clear();
    }
    out
}

fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The top-level property names of `interface name` in `text` (nested object types are not entered).
fn ts_fields(text: &str, name: &str) -> BTreeSet<String> {
    let start = text
        .find(&format!("export interface {name} {{"))
        .unwrap_or_else(|| panic!("protocol.ts: no `export interface {name}`"));
    let body = &text[start + text[start..].find('{').unwrap() + 1..];
    let (mut depth, mut out, mut line_start) = (0i32, BTreeSet::new(), true);
    let mut comment = false;
    let mut token = String::new();
    let bytes: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if comment {
            if c == '*' && bytes.get(i + 1) == Some(&'/') {
                comment = false;
                i += 1;
            }
        } else if c == '/' && bytes.get(i + 1) == Some(&'*') {
            comment = true;
        } else if c == '{' || c == '(' || c == '[' || c == '<' {
            depth += 1;
        } else if c == '}' || c == ')' || c == ']' || c == '>' {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if c == '\n' {
            line_start = true;
            token.clear();
        } else if depth == 0 && line_start {
            if c == ':' || c == '?' {
                if !token.trim().is_empty() {
                    out.insert(token.trim().to_string());
                }
                line_start = false;
            } else {
                token.push(c);
            }
        }
        i += 1;
    }
    out
}

/// (Rust file under `lsp/requests/`, its struct, the client's interfaces that declare it together.)
const PAIRS: &[(&str, &str, &[&str])] = &[
    ("original_position.rs", "Answer", &["OriginalPosition"]),
    ("symbolicate.rs", "Params", &["SymbolicateParams"]),
    ("symbolicate.rs", "Answer", &["SymbolicateResult"]),
    ("symbolicate.rs", "FrameAnswer", &["SymbolicatedFrame"]),
    (
        "map_info.rs",
        "Answer",
        &["MapLookup", "ServerMemory", "LoadedMapInfo"],
    ),
    ("map_info.rs", "MapMemory", &["MapMemory"]),
    ("composition.rs", "Answer", &["CompositionResult"]),
    ("profile.rs", "Params", &["ProfileParams"]),
    ("profile.rs", "Row", &["ProfileRow"]),
    ("profile.rs", "Answer", &["ProfileResult"]),
];

#[test]
fn every_custom_request_is_named_by_the_client_and_documented() {
    let methods = methods();
    assert!(methods.len() >= 7, "the table is read: {methods:?}");
    let protocol = read("extensions/vscode/src/protocol.ts");
    let docs = read("docs/editors.md");
    let mut missing = Vec::new();
    for m in methods.iter().filter(|m| *m != "sourcemap/debugPanic") {
        if !protocol.contains(&format!("= \"{m}\";")) {
            missing.push(format!(
                "protocol.ts names no `{m}` (export const … = \"{m}\";)"
            ));
        }
        if !docs.contains(&format!("| `{m}` |")) {
            missing.push(format!("docs/editors.md's table has no row for `{m}`"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn each_answer_has_the_fields_the_client_declares() {
    let protocol = read("extensions/vscode/src/protocol.ts");
    let mut wrong = Vec::new();
    for (file, rust, ts) in PAIRS {
        let text = read(&format!("server/sourcemap-ls/src/lsp/requests/{file}"));
        let server = rust_fields(&text, rust);
        assert!(!server.is_empty(), "{file} {rust}: no field read");
        let client: BTreeSet<String> = ts.iter().flat_map(|t| ts_fields(&protocol, t)).collect();
        for f in server.difference(&client) {
            wrong.push(format!("{file} {rust}.{f}: not in protocol.ts {ts:?}"));
        }
        for f in client.difference(&server) {
            wrong.push(format!(
                "protocol.ts {ts:?}.{f}: the server's {file} {rust} does not write it"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The answers (`src/answers/`) are free of the protocol: no file there names tower-lsp or its LSP types, so a
/// handler's rendering is the only place an answer becomes LSP.
#[test]
fn the_answers_name_no_protocol_type() {
    let dir = repo().join("server/sourcemap-ls/src/answers");
    let mut read_any = false;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        read_any = true;
        for word in ["tower_lsp", "lsp_types", "jsonrpc"] {
            assert!(
                !text.contains(word),
                "{} names {word}: an answer is rendered to the protocol by its handler",
                path.display()
            );
        }
    }
    assert!(read_any);
}
