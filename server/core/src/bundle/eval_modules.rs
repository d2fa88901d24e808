//! webpack's eval devtools: a bundle whose modules are each a string given to `eval`, every one a generated file of
//! its own, named by its `sourceURL` and carrying its own inline map.
//!
//! With `devtool: 'eval-source-map'`, `'eval-cheap-source-map'`, `'eval-cheap-module-source-map'` and their
//! `eval-nosources-*` twins (webpack's defaults in development mode), webpack 5 writes each module as
//! `eval("<code>")`: the code is the module's, made a JavaScript string by `JSON.stringify` (webpack's
//! `EvalSourceMapDevToolPlugin`: `` `eval(${JSON.stringify(content + footer)});` ``), its footer a
//! `//# sourceMappingURL=data:application/json;charset=utf-8;base64,…` and a `//# sourceURL=webpack-internal:///./src/x.ts`
//! (a literal `//# sourceURL=[module]` stands before it, unreplaced: V8 takes the last). V8 names the eval'd code by
//! its `sourceURL` and numbers its lines and columns from the string's first character, as for a script: a frame
//! `at X (webpack-internal:///./src/x.ts:42:19)` is line 42, column 19 (1-based) of the module's code, which is what
//! its inline map describes. Plain `devtool: 'eval'` has no map (its `sourceURL` is `webpack://…?`): nothing to map.
//!
//! Cost: one pass over the bundle's bytes for `eval("`, and over each literal to its closing quote (`memchr2`);
//! a module's code is decoded (`serde_json`) only when a frame or a hover needs it.

use std::ops::Range;

/// A module of a bundle made by webpack's eval devtools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalModule {
    /// The module's `sourceURL` (`webpack-internal:///./src/money.ts`): how frames name it.
    pub source_url: String,
    /// The byte range of its JSON string literal in the bundle, quotes included.
    pub literal: Range<usize>,
}

/// The prefix of the `sourceURL`s webpack's eval devtools with a map give their modules (`webpack-internal:///`
/// and the module's id, `./src/x.ts`).
pub const WEBPACK_INTERNAL: &str = "webpack-internal:///";

/// Whether `text` may hold eval'd modules with their own maps (a cheap test before [`eval_modules`]).
pub fn has_eval_modules(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"eval(\"").is_some()
        && memchr::memmem::find(text, b"sourceURL=webpack-internal:///").is_some()
}

/// Every `eval("…")` of `text` whose string ends with a `sourceURL` (the last one in it), in order.
pub fn eval_modules(text: &[u8]) -> Vec<EvalModule> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = memchr::memmem::find(&text[at..], b"eval(\"") {
        let start = at + i + "eval(".len();
        let Some(end) = literal_end(text, start) else {
            break;
        };
        at = end;
        let literal = &text[start..end];
        if let Some(source_url) = last_source_url(literal) {
            out.push(EvalModule {
                source_url,
                literal: start..end,
            });
        }
    }
    out
}

/// The end (after its closing quote) of the string literal whose opening quote is at `start`.
fn literal_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', &text[i..])?;
        match text[i] {
            b'\\' => i += 2,
            _ => return Some(i + 1),
        }
        if i >= text.len() {
            return None;
        }
    }
}

/// The last `//# sourceURL=` value inside a string literal (as written in it: escapes decoded).
fn last_source_url(literal: &[u8]) -> Option<String> {
    let key = b"sourceURL=";
    let at = memchr::memmem::rfind(literal, key)? + key.len();
    let rest = &literal[at..literal.len() - 1];
    // The value ends at the escaped line break after it (`\n`), or at the literal's end.
    let end = memchr::memmem::find(rest, b"\\n").unwrap_or(rest.len());
    let raw = std::str::from_utf8(&rest[..end]).ok()?;
    let value: String = serde_json::from_str(&format!("\"{raw}\"")).ok()?;
    let value = value.trim();
    (!value.is_empty() && value != "[module]").then(|| value.to_string())
}

/// The module's code: its string literal decoded.
pub fn module_code(text: &[u8], module: &EvalModule) -> Option<String> {
    serde_json::from_slice(text.get(module.literal.clone())?).ok()
}

/// The module's inline map (the last `sourceMappingURL` in its code, a `data:` URL), decoded; `None` when it has
/// none (plain `devtool: 'eval'`) or it is not a `data:` URL.
pub fn module_map(code: &str) -> Option<Vec<u8>> {
    let key = "sourceMappingURL=";
    let at = code.rfind(key)? + key.len();
    let url = code[at..].lines().next()?.trim();
    crate::bundle::locate::decode_data_url(url).ok()
}

/// Where a position of the bundle (0-based line, UTF-16 column) is in the module whose literal holds it: the
/// module's 0-based line and UTF-16 column, counting its code as `eval` receives it (each escape one character:
/// `\n` a line break, `\u` and its four hex digits one UTF-16 unit). `None` outside the literal's characters (its quotes included).
pub fn position_in_module(
    text: &[u8],
    module: &EvalModule,
    line: u32,
    column: u32,
) -> Option<(u32, u32)> {
    let line_start = line_start(text, line)?;
    if line_start > module.literal.start {
        // The literal starts on an earlier line (an escaped line break keeps it on one line: webpack's literals
        // are always on one): positions on later lines are not in it.
        return None;
    }
    // The literal's opening quote in UTF-16 units from the line's start.
    let line_text = std::str::from_utf8(&text[line_start..module.literal.start]).ok()?;
    let quote = line_text.encode_utf16().count() as u32;
    let inner = column.checked_sub(quote + 1)?;
    let body = std::str::from_utf8(&text[module.literal.start + 1..module.literal.end - 1]).ok()?;
    let (mut l, mut c, mut units) = (0u32, 0u32, 0u32);
    let mut chars = body.chars();
    while units < inner {
        let ch = chars.next()?;
        if ch != '\\' {
            units += ch.len_utf16() as u32;
            c += ch.len_utf16() as u32;
            continue;
        }
        let escaped = chars.next()?;
        units += 2;
        match escaped {
            'n' => {
                l += 1;
                c = 0;
            }
            'u' => {
                for _ in 0..4 {
                    chars.next()?;
                }
                units += 4;
                c += 1;
            }
            _ => c += 1,
        }
    }
    (units == inner).then_some((l, c))
}

/// The module whose literal holds UTF-16 column `column` of `line` (one line of a bundle: webpack writes each
/// module's literal on one line), and the position there in the module's code.
pub fn module_at(line: &[u8], column: u32) -> Option<(EvalModule, (u32, u32))> {
    eval_modules(line).into_iter().find_map(|m| {
        let at = position_in_module(line, &m, 0, column)?;
        Some((m, at))
    })
}

/// The byte where 0-based line `line` starts.
fn line_start(text: &[u8], line: u32) -> Option<usize> {
    let mut at = 0;
    for _ in 0..line {
        at += memchr::memchr(b'\n', &text[at..])? + 1;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bundle as webpack's `eval-source-map` writes it: modules in `eval("…")`, each with its map and `sourceURL`.
    fn bundle() -> String {
        let code = "{function add(a, b) {\n  return a + \"é\" + b;\n}\nthrow new Error(\"x\");\n}";
        let map = r#"{"version":3,"file":"./src/a.ts","sources":["webpack://app/./src/a.ts?1234"],"names":[],"mappings":"AAAA"}"#;
        let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, map);
        let footer = format!(
            "\n//# sourceURL=[module]\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,{b64}\n//# sourceURL=webpack-internal:///./src/a.ts\n"
        );
        let literal = serde_json::to_string(&format!("{code}{footer}")).unwrap();
        format!("var __webpack_modules__ = ({{\n\"./src/a.ts\":\n(() => {{\n\"use strict\";\neval({literal});\n}}),\n\"./src/b.js\":\n(() => {{\neval(\"1;\\n//# sourceURL=webpack://app/./src/b.js?\");\n}})\n}});\n")
    }

    #[test]
    fn modules_their_code_and_their_maps() {
        let text = bundle();
        let modules = eval_modules(text.as_bytes());
        let urls: Vec<&str> = modules.iter().map(|m| m.source_url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "webpack-internal:///./src/a.ts",
                "webpack://app/./src/b.js?"
            ]
        );
        let code = module_code(text.as_bytes(), &modules[0]).unwrap();
        assert!(
            code.starts_with("{function add(a, b) {\n  return a + \"é\""),
            "{code}"
        );
        let map = module_map(&code).unwrap();
        assert!(String::from_utf8(map)
            .unwrap()
            .contains("webpack://app/./src/a.ts?1234"));
        assert_eq!(
            module_map(&module_code(text.as_bytes(), &modules[1]).unwrap()),
            None
        );
        assert!(has_eval_modules(text.as_bytes()));
        assert!(!has_eval_modules(b"eval(\"1\")"));
    }

    /// A position in the bundle's line holding the literal is the module's position: escapes count as the
    /// characters they stand for.
    #[test]
    fn bundle_positions_inside_a_module() {
        let text = bundle();
        let m = &eval_modules(text.as_bytes())[0];
        let line = text[..m.literal.start].matches('\n').count() as u32;
        let quote = text[..m.literal.start].rsplit('\n').next().unwrap().len() as u32;
        let at = |c| position_in_module(text.as_bytes(), m, line, c);
        assert_eq!(at(quote), None, "the quote");
        assert_eq!(at(quote + 1), Some((0, 0)), "`{{`");
        assert_eq!(at(quote + 1 + 10), Some((0, 10)), "`add`");
        // `{function add(a, b) {\n` is 21 characters, its `\n` two in the literal: `  return` starts line 1.
        assert_eq!(at(quote + 1 + 21 + 2), Some((1, 0)));
        assert_eq!(at(quote + 1 + 21 + 2 + 2), Some((1, 2)), "`return`");
        // `  return a + \"é\"`: the escaped quote is one character; `é` one unit.
        assert_eq!(at(quote + 1 + 23 + 13 + 2 + 1), Some((1, 15)), "after é");
        assert_eq!(at(quote + 1 + 23 + 14), None, "inside an escape");
        assert_eq!(position_in_module(text.as_bytes(), m, line + 1, 0), None);
    }
}
