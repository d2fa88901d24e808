use super::*;

/// Positions of every character start, counted one character at a time (the map's conventions: lines end at
/// \n, \r\n, \r, U+2028, U+2029; columns in UTF-16 units).
fn naive_positions(text: &str) -> Vec<(usize, TextPosition)> {
    let mut out = Vec::new();
    let (mut line, mut column) = (0u32, 0u32);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        out.push((i, TextPosition { line, column }));
        let crlf = c == '\r' && chars.peek().is_some_and(|&(_, n)| n == '\n');
        if matches!(c, '\n' | '\u{2028}' | '\u{2029}') || (c == '\r' && !crlf) {
            line += 1;
            column = 0;
        } else {
            column += c.len_utf16() as u32;
        }
    }
    out.push((text.len(), TextPosition { line, column }));
    out
}

#[test]
fn offsets_and_positions_agree_with_counting_each_character() {
    let text = "a\r\nb\rc\u{2028}d\u{2029}é…x😀y\n\n€\r\r\nlast";
    let naive = naive_positions(text);
    let offsets: Vec<usize> = naive.iter().map(|&(o, _)| o).collect();
    let want: Vec<TextPosition> = naive.iter().map(|&(_, p)| p).collect();
    assert_eq!(
        positions_from(text, (0, TextPosition::default()), &offsets),
        want
    );
    // From an anchor inside the text.
    let (k, anchor) = naive[7];
    assert_eq!(positions_from(text, (k, anchor), &offsets[7..]), want[7..]);
    let back = offsets_of(text, (0, TextPosition::default()), &want);
    // A `\r` before `\n` is a column of its line, and each position is found at its own offset.
    assert_eq!(back, offsets.iter().map(|&o| Some(o)).collect::<Vec<_>>());
    assert_eq!(offsets_of(text, (k, anchor), &want[7..]), back[7..]);
    // Past a line's end, or inside a surrogate pair: no offset.
    let emoji = naive
        .iter()
        .position(|&(o, _)| text[o..].starts_with('😀'))
        .unwrap();
    let inside = TextPosition {
        column: want[emoji].column + 1,
        ..want[emoji]
    };
    assert_eq!(
        offsets_of(text, (0, TextPosition::default()), &[inside]),
        [None]
    );
    let past = TextPosition { line: 0, column: 9 };
    assert_eq!(
        offsets_of(text, (0, TextPosition::default()), &[past]),
        [None]
    );
}

/// Long texts, whose chunks of `\n`-only lines are skipped at once (`skip_plain_chunks`), between stretches of
/// `\r\n`, lone `\r`, U+2028 and other non-ASCII characters read line by line, and lines longer than a chunk:
/// sparse offsets and positions, in both directions, agree with counting each character.
#[test]
fn sparse_positions_in_long_texts_agree_with_counting_each_character() {
    let mut text = String::new();
    for i in 0..3000 {
        let line = match i % 700 {
            0..=593 => format!(
                "  const v{i} = f({i}) + \"né\"; // {}\n",
                "w".repeat(i % 37)
            ),
            594..=693 => format!("let a{i} = 'é{i}';\r\n"),
            694..=698 => format!("x{i}\u{2028}y\r"),
            _ => "z".repeat(9000) + "\n",
        };
        text.push_str(&line);
    }
    let naive = naive_positions(&text);
    for stride in [1usize, 97, 1013, 20_011] {
        let picked: Vec<(usize, TextPosition)> = naive.iter().step_by(stride).copied().collect();
        let offsets: Vec<usize> = picked.iter().map(|&(o, _)| o).collect();
        let want: Vec<TextPosition> = picked.iter().map(|&(_, p)| p).collect();
        assert_eq!(
            positions_from(&text, (0, TextPosition::default()), &offsets),
            want,
            "stride {stride}"
        );
        assert_eq!(
            offsets_of(&text, (0, TextPosition::default()), &want),
            offsets.iter().map(|&o| Some(o)).collect::<Vec<_>>(),
            "stride {stride}"
        );
    }
    // Alone, each position just past a chunk's end (the chunks start at 0): its line began inside the chunk.
    for &(o, p) in naive.iter().filter(|&&(o, _)| o % PLAIN_CHUNK < 3) {
        let from = (0, TextPosition::default());
        assert_eq!(positions_from(&text, from, &[o]), [p], "offset {o}");
        assert_eq!(offsets_of(&text, from, &[p]), [Some(o)], "offset {o}");
    }
}

/// Each `$0` marks a position; the expected answer is the written name of the innermost function there.
fn names_at(code: &str, file: &str) -> Vec<Option<String>> {
    let mut text = String::new();
    let mut marks = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("$0") {
        text.push_str(&rest[..i]);
        let line = text.matches('\n').count() as u32;
        let column = text[text.rfind('\n').map_or(0, |n| n + 1)..]
            .encode_utf16()
            .count() as u32;
        marks.push(TextPosition { line, column });
        rest = &rest[i + 2..];
    }
    text.push_str(rest);
    let scopes = FunctionScopes::parse(&text, file, Dialect::Original).unwrap();
    marks
        .iter()
        .map(|&p| scopes.innermost(p).and_then(|f| f.written_name()))
        .collect()
}

fn some(names: &[&str]) -> Vec<Option<String>> {
    names.iter().map(|n| Some(n.to_string())).collect()
}

#[test]
fn names_of_every_kind_of_function() {
    let code = r#"
function declared() { $0 }
var assigned = function () { $0 };
var namedExpr = function own() { $0 };
let arrow = () => $0 1;
exports.member.path = function () { $0 };
this.onThis = function () { $0 };
x = async () => { $0 };
const obj = { key: function () { $0 }, short() { $0 }, "str key": () => { $0 } };
class Klass { constructor() { $0 } method() { $0 } static make() { $0 } field = () => { $0 }; #priv() { $0 } }
const Expr = class { m() { $0 } };
function outer() { function inner() { $0 } $0 }
"#;
    assert_eq!(
        names_at(code, "a.js"),
        some(&[
            "declared",
            "assigned",
            "own",
            "arrow",
            "exports.member.path",
            "onThis",
            "x",
            "key",
            "short",
            "str key",
            "Klass",
            "Klass.method",
            "Klass.make",
            "Klass.field",
            "Klass.#priv",
            "Expr.m",
            "inner",
            "outer",
        ])
    );
}

#[test]
fn callbacks_are_anonymous_and_top_level_is_none() {
    let code =
        "$0[1].map(function (x) { $0 }); call(() => $0 2); export default function () { $0 }";
    assert_eq!(
        names_at(code, "m.mjs"),
        vec![None, None, None, Some("default".into())]
    );
}

#[test]
fn typescript_and_jsx() {
    let ts =
        "class A { run(x: number): void { $0 } }\nconst f = <T,>(x: T): T => { $0 return x; };";
    assert_eq!(names_at(ts, "a.ts"), some(&["A.run", "f"]));
    let jsx = "function App() { return <div onClick={() => { $0 }}>{$0}</div>; }";
    assert_eq!(names_at(jsx, "App.jsx"), vec![None, Some("App".into())]);
    let js_with_jsx = "const C = () => <b>{$0}</b>;";
    assert_eq!(names_at(js_with_jsx, "c.js"), some(&["C"]));
}

#[test]
fn extents_and_tokens_are_in_utf16_columns() {
    // 'é' is one UTF-16 unit and two bytes; '𝒳' is two units and four bytes.
    let text = "var s='é𝒳';function f(){}";
    let scopes = FunctionScopes::parse(text, "a.js", Dialect::Generated).unwrap();
    let f = scopes.iter().next().unwrap();
    assert_eq!(
        f.start,
        TextPosition {
            line: 0,
            column: 12
        }
    );
    assert_eq!(
        f.end,
        TextPosition {
            line: 0,
            column: 26
        }
    );
    assert_eq!(
        f.parts[0].token,
        Some(TextPosition {
            line: 0,
            column: 21
        })
    );
    let crlf = "a;\r\nb;\u{2028}function g(){}";
    let scopes = FunctionScopes::parse(crlf, "a.js", Dialect::Generated).unwrap();
    assert_eq!(
        scopes.iter().next().unwrap().start,
        TextPosition { line: 2, column: 0 }
    );
}

#[test]
fn an_unrecoverable_syntax_error_is_an_error() {
    assert!(FunctionScopes::parse("function (", "a.js", Dialect::Generated).is_err());
}
