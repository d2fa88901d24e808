//! The JSC profiler map (`.profmap`): one line per JIT trampoline, `TRAMPOLINE JS_NAME OFFSET`, which
//! metro-symbolicate (`Symbolication.js`, `symbolicateProfilerMap`) rewrites to `TRAMPOLINE NAME::SOURCE:LINE:COLUMN`.
//! Its conventions, from that source:
//! - the line is split on single spaces; OFFSET is read as `parseInt(…, 10)` (leading digits); an OFFSET of 0 or
//!   one that is not a number leaves the line as `TRAMPOLINE TRAMPOLINE`;
//! - OFFSET is a column on the map's first line (`getOriginalPositionFor(inputLineStart, offset)`: the line is the
//!   input line base itself, so always line 1; the column counts from `--input-column-start`);
//! - NAME is the original function (the function map's), else the mapping's name, else JS_NAME; SOURCE, LINE and
//!   COLUMN are the original position in the output bases, each empty when unknown (JavaScript's `join` of null).
//!
//! One difference, on purpose: metro-symbolicate drops the file's last line when the file does not end with a
//! newline (`split('\n').slice(0, -1)`); every line is answered here.

/// One line of a profiler map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfmapLine {
    /// The first field, the JIT trampoline, written back as it is.
    pub trampoline: String,
    /// The second field, JS_NAME: written as the name when the map gives none.
    pub js_name: String,
    /// The bytecode or code offset; `None` when it is 0 or not a number (the line is not looked up).
    pub offset: Option<u32>,
}

/// Whether `bytes` read as a profiler map: a file named `*.profmap` (metro-symbolicate goes by the name), or text
/// whose first line is a `JS_NNNN_…` trampoline followed by a name and a number.
pub fn is_profmap(name: &str, bytes: &[u8]) -> bool {
    if name.ends_with(".profmap") {
        return true;
    }
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let Ok(first) = std::str::from_utf8(first) else {
        return false;
    };
    let parts: Vec<&str> = first.trim_end_matches('\r').split(' ').collect();
    parts.len() == 3
        && parts[0].starts_with("JS_")
        && parts[0][3..].starts_with(|c: char| c.is_ascii_digit())
        && !parts[2].is_empty()
        && parts[2].bytes().all(|b| b.is_ascii_digit())
}

/// `parseInt(s, 10)` as a whole number: its leading digits (after white space and a `+`), `None` for none or 0.
fn parse_int(s: &str) -> Option<u32> {
    let s = s.trim_start();
    let s = s.strip_prefix('+').unwrap_or(s);
    let digits: &str = &s[..s.bytes().take_while(u8::is_ascii_digit).count()];
    digits
        .parse::<u64>()
        .ok()
        .filter(|&n| n > 0)
        .map(|n| n.min(u64::from(u32::MAX)) as u32)
}

/// The map's lines (a final line without a newline included; a final empty line is not a line), its bytes read as a
/// trace's are (`trace::input`: UTF-16 by its byte-order mark, bytes that are not UTF-8 carried through, written back
/// with `input::to_bytes`).
pub fn read_profmap(bytes: &[u8]) -> Vec<ProfmapLine> {
    let text = crate::trace::input::decode(bytes).text;
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|line| {
            let mut parts = line.split(' ');
            let trampoline = parts.next().unwrap_or_default().to_string();
            let js_name = parts.next().unwrap_or_default().to_string();
            let offset = parts.next().and_then(parse_int);
            ProfmapLine {
                trampoline,
                js_name,
                offset,
            }
        })
        .collect()
}

/// An original place for a line, in the output bases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfmapAnswer {
    /// The original function's name; `None`: the line's JS_NAME is written.
    pub name: Option<String>,
    /// The original source; `None`: written empty.
    pub source: Option<String>,
    /// The original line, in the output base; `None`: written empty.
    pub line: Option<u32>,
    /// The original column, in the output base; `None`: written empty.
    pub column: Option<u32>,
}

/// A line as metro-symbolicate writes it back.
pub fn render(line: &ProfmapLine, answer: Option<&ProfmapAnswer>) -> String {
    if line.offset.is_none() {
        return format!("{} {}", line.trampoline, line.trampoline);
    }
    let empty = ProfmapAnswer {
        name: None,
        source: None,
        line: None,
        column: None,
    };
    let a = answer.unwrap_or(&empty);
    let text = |v: Option<u32>| v.map(|n| n.to_string()).unwrap_or_default();
    format!(
        "{} {}::{}:{}:{}",
        line.trampoline,
        a.name.as_deref().unwrap_or(&line.js_name),
        a.source.as_deref().unwrap_or_default(),
        text(a.line),
        text(a.column)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_as_metro_symbolicate_reads_them() {
        let text = b"JS_0158_xxxxxxxxxxxxxxxxxxxxxx fe 91081\nJS_0161_xxxxxxxxxxxxxxxxxxxxxx setGapAtCursor 0\nJS_0162_x (unknown) 50818abc\nJS_0163_x value";
        assert!(is_profmap("trace.txt", text));
        assert!(is_profmap("x.profmap", b""));
        assert!(!is_profmap("x.txt", b"{\"a\":1}"));
        let lines = read_profmap(text);
        assert_eq!(
            lines.len(),
            4,
            "the last line, without a newline, is a line"
        );
        assert_eq!(lines[0].offset, Some(91081));
        assert_eq!(lines[1].offset, None, "0 is not looked up");
        assert_eq!(
            lines[2].offset,
            Some(50818),
            "parseInt reads leading digits"
        );
        assert_eq!(lines[3].offset, None);
        assert_eq!(
            render(&lines[1], None),
            "JS_0161_xxxxxxxxxxxxxxxxxxxxxx JS_0161_xxxxxxxxxxxxxxxxxxxxxx"
        );
        // A name byte that is not UTF-8 is written back as it came.
        let latin1 = read_profmap(b"JS_0164_x gr\xf6\xdfe 12\n");
        assert_eq!(
            crate::trace::input::to_bytes(&render(&latin1[0], None)).as_ref(),
            b"JS_0164_x gr\xf6\xdfe::::"
        );
        assert_eq!(
            render(&lines[0], None),
            "JS_0158_xxxxxxxxxxxxxxxxxxxxxx fe::::"
        );
        let a = ProfmapAnswer {
            name: Some("parse".into()),
            source: Some("src/a.js".into()),
            line: Some(3),
            column: Some(4),
        };
        assert_eq!(
            render(&lines[0], Some(&a)),
            "JS_0158_xxxxxxxxxxxxxxxxxxxxxx parse::src/a.js:3:4"
        );
    }
}
