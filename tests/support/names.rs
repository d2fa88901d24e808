//! How end-to-end tests compare function names with a truth (the round-trip and wild corpora).

/// The function's own name: `async `, `new `, `get `, `set ` and ` [as ALIAS]` dropped, then the last `.`-separated
/// part kept (dots inside brackets, `[Symbol.iterator]`, not counting); `<anonymous>` counts as none.
pub fn simple_name(printed: Option<&str>) -> Option<String> {
    let mut s = printed?.trim();
    if let Some(i) = s.find(" [as ") {
        if s.ends_with(']') {
            s = &s[..i];
        }
    }
    for prefix in ["async ", "new ", "get ", "set "] {
        s = s.strip_prefix(prefix).unwrap_or(s);
    }
    let mut depth = 0i32;
    let mut start = 0;
    for (i, ch) in s.char_indices() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 && i + 1 < s.len() => start = i + 1,
            _ => {}
        }
    }
    let last = &s[start..];
    (!last.is_empty() && last != "<anonymous>").then(|| last.to_string())
}
