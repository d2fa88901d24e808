//! Whether a name taken from outside the original code (the name the engine printed, or the property a caller called
//! the function through) is one the frame's original source spells: only then is it shown as an original name.
//!
//! V8 names a function it cannot name from its code after the object it was found on (`X.onClick.f.<computed>`,
//! `$t.fn`, `Bi.onRemove.f.<computed>`): in a minified bundle those are the bundle's names — minified letters, a
//! framework's internal properties — and no original source the user wrote spells them. A frame in a Vue template
//! handler shown as `X.onClick.f.<computed>` looks like an original name and is not; said anonymous, it is right. The
//! engine's own type names (`HTMLButtonElement.<anonymous>`, `Object.<anonymous>`, `Proxy.<anonymous>`) are not
//! minified and stay: they say what called the function, and `<anonymous>` already says it has no name.

/// Receiver types V8 prints before a method's name that a minifier never renames (a class of the bundle would be:
/// its receiver is then left out rather than shown minified).
pub(crate) const BUILTIN_RECEIVERS: &[&str] = &[
    "Object",
    "Function",
    "Array",
    "Promise",
    "Module",
    "Map",
    "Set",
    "WeakMap",
    "Error",
    "String",
    "Number",
    "Boolean",
    "Symbol",
    "RegExp",
    "Date",
    "process",
    "Timeout",
    "Immediate",
    "EventEmitter",
    "Socket",
    "Server",
    "Readable",
    "Writable",
    "Duplex",
    "Transform",
    "Worker",
    "Window",
    "HTMLDocument",
    "Document",
    "XMLHttpRequest",
];

/// More of the engine's own type names V8 prints as receivers, which no source needs to spell (V8's
/// `GetConstructorName` of a host or built-in object); with `BUILTIN_RECEIVERS`, what a printed name may hold that
/// no original source spells.
const MORE_RUNTIME_TYPES: &[&str] = &[
    "Proxy",
    "Reflect",
    "WeakSet",
    "JSON",
    "Math",
    "Element",
    "Node",
    "EventTarget",
    "WebSocket",
    "MessagePort",
    "FileReader",
    "IDBRequest",
    "MutationObserver",
    "IntersectionObserver",
    "ResizeObserver",
    "Generator",
    "AsyncGenerator",
    "AsyncFunction",
    "GeneratorFunction",
    "globalThis",
];

/// What V8 writes around names that is not a name: `<anonymous>`, `<computed>` (a computed property key), the
/// `async `/`new `/`get `/`set ` prefixes (V8's `CallSite` serialization, `messages.cc` `AppendMethodCall`).
const MARKERS: &[&str] = &["<anonymous>", "<computed>"];
const PREFIXES: &[&str] = &["async ", "new ", "get ", "set "];

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn is_runtime_type(part: &str) -> bool {
    BUILTIN_RECEIVERS.contains(&part)
        || MORE_RUNTIME_TYPES.contains(&part)
        || ((part.starts_with("HTML") || part.starts_with("SVG")) && part.ends_with("Element"))
}

/// The identifiers of a printed function name that a source would have to spell (`X.onClick.f.<computed>` → `X`,
/// `onClick`, `f`; `$t.set [as setter]` → `$t`, `set`, `setter`; `Batch.#process` → `Batch`, `#process`), without
/// V8's markers and the engine's own type names.
fn parts(name: &str) -> Vec<&str> {
    let mut name = name.trim();
    while let Some(rest) = PREFIXES.iter().find_map(|p| name.strip_prefix(p)) {
        name = rest;
    }
    let mut out = Vec::new();
    let mut start = None;
    let mut skip_to = 0;
    for (i, c) in name.char_indices() {
        if i < skip_to {
            continue;
        }
        if let Some(m) = MARKERS.iter().find(|m| name[i..].starts_with(**m)) {
            if let Some(s) = start.take() {
                out.push(&name[s..i]);
            }
            skip_to = i + m.len();
            continue;
        }
        let in_name = is_identifier_char(c) || (c == '#' && start.is_none());
        match (in_name, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&name[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&name[s..]);
    }
    out.retain(|p| {
        !p.starts_with(|c: char| c.is_ascii_digit()) && !is_runtime_type(p) && *p != "as"
    });
    out
}

/// Whether `text` spells `word` as a whole identifier (not inside a longer one).
fn spells_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(|c| is_identifier_char(c) || c == '#')
            && !after.is_some_and(is_identifier_char)
    })
}

/// Whether the original source `text` spells every identifier of the printed function name `name` (see the module).
pub fn spelled_in(text: &str, name: &str) -> bool {
    parts(name).into_iter().all(|p| spells_word(text, p))
}

/// The printed function name `name` as far as the original source `text` spells it, or `None` when it names nothing
/// the source wrote: a receiver chain the source does not spell is left out (`s.<computed> [as heading]` →
/// `<computed> [as heading]`, as `in_v8_shape` leaves out a minified class), and so is an alias it does not spell;
/// a method it does not spell, or only V8's marker left with no alias to say which property it was called through
/// (`X.onClick.f.<computed>`), leaves no name.
pub fn as_spelled(text: &str, name: &str) -> Option<String> {
    let spelled = |part: &str| spelled_in(text, part);
    let (call, alias) = match name.strip_suffix(']').and_then(|n| n.rsplit_once(" [as ")) {
        Some((call, alias)) => (call, Some(alias).filter(|a| spelled(a))),
        None => (name, None),
    };
    let prefix_len = call.len()
        - PREFIXES
            .iter()
            .fold(call, |c, p| c.strip_prefix(p).unwrap_or(c))
            .len();
    let (prefix, path) = call.split_at(prefix_len);
    let (receiver, method) = match top_level_last_dot(path) {
        Some(dot) => (Some(&path[..dot]), &path[dot + 1..]),
        None => (None, path),
    };
    let receiver = receiver.filter(|r| spelled(r));
    let marker = MARKERS.contains(&method);
    if (marker && alias.is_none() && receiver.is_none()) || (!marker && !spelled(method)) {
        return None;
    }
    let mut out = String::from(prefix);
    if let Some(r) = receiver {
        out.push_str(r);
        out.push('.');
    }
    out.push_str(method);
    if let Some(a) = alias {
        out.push_str(" [as ");
        out.push_str(a);
        out.push(']');
    }
    Some(out)
}

/// The last `.` of `path` outside brackets (`a.b[c.d].e` → before `e`).
fn top_level_last_dot(path: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut last = None;
    for (i, c) in path.char_indices() {
        match c {
            '[' | '<' => depth += 1,
            ']' | '>' => depth -= 1,
            '.' if depth == 0 => last = Some(i),
            _ => {}
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    /// V8's names of framework-shaped functions (fixtures/spa-frameworks' README) against a Vue SFC's text.
    #[test]
    fn minified_and_internal_names_are_not_spelled_and_the_engines_types_need_not_be() {
        let sfc = "<script setup lang=\"ts\">\nfunction removeAt(i: number) { cart.remove(i) }\n\
                   const totalLabel = computed(() => cart.total.format())\nclass Batch { #process() {} }\n</script>\n\
                   <template><button @click=\"removeAt(0)\">x</button></template>\n";
        for (name, spelled) in [
            ("X.onClick.f.<computed>", false),
            ("$t.fn", false),
            ("$t.set [as setter]", false),
            ("Bi.onRemove.f.<computed>", false),
            ("so.onClick.a.<computed>.a.<computed>", false),
            ("o", false),
            ("fn", false),
            ("removeAt", true),
            ("async removeAt", true),
            ("cart.remove", true),
            ("HTMLButtonElement.<anonymous>", true),
            ("Proxy.<anonymous>", true),
            ("Object.<anonymous>", true),
            ("Batch.#process", true),
            ("Batch.#proc", false),
            ("total", true),
            ("tot", false),
            ("get total", true),
        ] {
            assert_eq!(spelled_in(sfc, name), spelled, "{name}");
        }
    }

    /// What of a printed name is kept: the parts the source spells, never V8's marker alone.
    #[test]
    fn a_printed_name_keeps_what_the_source_spells() {
        let source = "class Instance { [key]() { return this.heading() } heading() {} }\nfunction removeAt() {}\n";
        for (name, kept) in [
            ("X.onClick.f.<computed>", None),
            ("$t.fn", None),
            ("o", None),
            ("s.<computed> [as heading]", Some("<computed> [as heading]")),
            ("s.heading", Some("heading")),
            ("Instance.heading [as xy]", Some("Instance.heading")),
            (
                "HTMLButtonElement.<anonymous>",
                Some("HTMLButtonElement.<anonymous>"),
            ),
            ("e.<anonymous>", None),
            ("get removeAt", Some("get removeAt")),
            ("removeAt", Some("removeAt")),
        ] {
            assert_eq!(as_spelled(source, name).as_deref(), kept, "{name}");
        }
    }
}
