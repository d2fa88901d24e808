//! The hover's answer (`HoverAnswer`): where a bundle position comes from, or why there is no answer, and its text.
//! `lsp/requests/hover.rs` decides it and renders it as an LSP `Hover` (markdown, or plain text for clients that
//! ask for it).

use std::fmt::Write;
use std::path::PathBuf;

use sourcemap_core::source::today::{moved_by, Status, TodayPosition};

use super::LineSpan;

/// What a hover on a bundle position answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoverAnswer {
    /// Nothing is answered here, and why (the map does not fit, the position is past its line, an edit wrote it).
    NoAnswer { why: String, at: LineSpan },
    /// The original position of the generated segment under the cursor.
    Original(Box<OriginalHover>),
    /// A position inside a module of webpack's eval devtools, answered by the module's own inline map.
    EvalModule(Box<EvalModuleHover>),
}

/// Where a generated segment comes from, with what a reader needs around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalHover {
    /// The map's `sources` string (`(unnamed source)` when it has none).
    pub source: String,
    /// The source's path in the workspace, when its local file is the build's copy (then `source` goes to the footer).
    pub shown: Option<String>,
    /// The original position, 0-based (shown 1-based, as stack traces count).
    pub line: u32,
    pub column: u32,
    /// The original function the position is in, when the code says.
    pub function: Option<Function>,
    /// The segment's original name (the token's, not the function's).
    pub name: Option<String>,
    /// The source is on the map's ignore list.
    pub ignore_listed: bool,
    /// Where the position is in the local file today, when the file was edited since the build.
    pub today: Option<TodayPosition>,
    /// A local file at the source's path whose text differs from the map's copy.
    pub differing: Option<PathBuf>,
    /// The code frame of the original source around the position.
    pub code_frame: Option<String>,
    /// The map as the footer names it: its file's name, or "inline map".
    pub map_name: String,
    /// The generated segment's span on its document line.
    pub span: LineSpan,
}

/// The original function around a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Function {
    Named(String),
    TopLevel,
    Anonymous,
}

/// A position inside an eval'd module, answered by its inline map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalModuleHover {
    pub source: String,
    pub line: u32,
    pub column: u32,
    pub name: Option<String>,
    pub code_frame: Option<String>,
    /// The module's `sourceURL`.
    pub module: String,
    pub at: LineSpan,
}

impl HoverAnswer {
    /// The span the hover covers on the document's (build's) line.
    pub fn span(&self) -> LineSpan {
        match self {
            HoverAnswer::NoAnswer { at, .. } => *at,
            HoverAnswer::Original(o) => o.span,
            HoverAnswer::EvalModule(e) => e.at,
        }
    }

    /// The hover's text as markdown.
    pub fn markdown(&self) -> String {
        match self {
            HoverAnswer::NoAnswer { why, .. } => format!("**No answer here** — {why}"),
            HoverAnswer::Original(o) => o.markdown(),
            HoverAnswer::EvalModule(e) => e.markdown(),
        }
    }
}

impl OriginalHover {
    fn markdown(&self) -> String {
        let heading = self.shown.as_deref().unwrap_or(&self.source);
        let mut md = format!("**`{heading}:{}:{}`**", self.line + 1, self.column + 1);
        // The question a frame asks: which original function is this in (not the token's name, which follows).
        match &self.function {
            Some(Function::Named(f)) => {
                let _ = write!(md, " in `{f}`");
            }
            Some(Function::TopLevel) => md.push_str(" (top level)"),
            Some(Function::Anonymous) => md.push_str(" (in an anonymous function)"),
            None => {}
        }
        if let Some(name) = &self.name {
            let _ = write!(md, " — `{name}`");
        }
        if self.ignore_listed {
            md.push_str(" *(ignore-listed)*");
        }
        md.push('\n');
        if let Some(now) = self.today {
            md.push('\n');
            md.push_str(&since_the_build(heading, self.line, self.column, now));
            md.push('\n');
        }
        if let Some(path) = &self.differing {
            let _ = write!(
                md,
                "\n*The local file `{}` differs from the map's copy of this source: the code below and go to \
                 definition use the map's copy.*\n",
                path.display()
            );
        }
        if let Some(frame) = &self.code_frame {
            let _ = write!(md, "\n```{}\n{frame}```\n", fence_language(&self.source));
        }
        let _ = write!(md, "\n*sourcemap-ls · {}", self.map_name);
        if self.shown.is_some() {
            let _ = write!(md, " · source `{}`", self.source);
        }
        md.push('*');
        md
    }
}

impl EvalModuleHover {
    fn markdown(&self) -> String {
        let mut md = format!(
            "**`{}:{}:{}`**",
            self.source,
            self.line + 1,
            self.column + 1
        );
        if let Some(name) = &self.name {
            let _ = write!(md, " — `{name}`");
        }
        md.push('\n');
        if let Some(frame) = &self.code_frame {
            let _ = write!(md, "\n```\n{frame}```\n");
        }
        let _ = write!(
            md,
            "\n*sourcemap-ls · the eval'd module `{}`, its inline map (webpack's eval devtool)*",
            self.module
        );
        md
    }
}

/// The code fence language for a source, by its extension.
fn fence_language(source: &str) -> &'static str {
    let path = source.split(['?', '#']).next().unwrap_or(source);
    match path.rsplit('.').next().unwrap_or("") {
        "ts" | "mts" | "cts" => "ts",
        "tsx" => "tsx",
        "jsx" => "jsx",
        "js" | "mjs" | "cjs" => "js",
        "css" => "css",
        "scss" => "scss",
        "vue" => "vue",
        "svelte" => "svelte",
        _ => "",
    }
}

/// Both places of a position whose file has been edited since the build (lines and columns 1-based, as the hover's
/// heading): where it was built, and where that code is in the file now, or what became of it.
fn since_the_build(source: &str, line: u32, column: u32, now: TodayPosition) -> String {
    let (l, c) = (line + 1, column + 1);
    let (nl, nc) = (now.line + 1, now.column + 1);
    match now.status {
        Status::Unchanged | Status::Moved => format!(
            "In the build: `{source}:{l}:{c}`; in your file now: `:{nl}:{nc}` ({}).",
            moved_by(line, now.line)
        ),
        Status::Changed => format!(
            "*Your file `{source}` has changed here since the build: line {l} was rewritten (it is line {nl} now). \
             The code below and go to definition use the build's copy.*"
        ),
        Status::Deleted => format!(
            "*Line {l} is gone from your file `{source}` since the build (the code after it starts at line {nl} now). \
             The code below and go to definition use the build's copy.*"
        ),
    }
}

/// The hover's markdown as plain text, same information: emphasis and code marks dropped, code fences removed
/// around their (kept) lines. The markdown is ours, so only the marks it uses are handled.
pub fn plain_text(md: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for line in md.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            // Source code: `*` and backticks are the program's own.
            out.push_str(line);
        } else {
            out.push_str(&line.replace("**", "").replace(['`', '*'], ""));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer() -> OriginalHover {
        OriginalHover {
            source: "../src/orders.ts".into(),
            shown: Some("demo/src/orders.ts".into()),
            line: 4,
            column: 23,
            function: Some(Function::Named("parseOrder".into())),
            name: Some("map".into()),
            ignore_listed: false,
            today: None,
            differing: None,
            code_frame: Some("> 5 | x.map(f => `${f * 2}`)\n".into()),
            map_name: "app.js.map".into(),
            span: LineSpan {
                line: 0,
                start: 49,
                end: 52,
            },
        }
    }

    /// The hover as people read it: the workspace path in the heading and the map's string in the footer, the
    /// function, the token's name, the code frame fenced by the source's language.
    #[test]
    fn an_original_position_reads_as_a_heading_a_frame_and_a_footer() {
        assert_eq!(
            HoverAnswer::Original(Box::new(answer())).markdown(),
            "**`demo/src/orders.ts:5:24`** in `parseOrder` — `map`\n\n```ts\n> 5 | x.map(f => `${f * 2}`)\n```\n\n\
             *sourcemap-ls · app.js.map · source `../src/orders.ts`*"
        );
        let moved = OriginalHover {
            shown: None,
            function: Some(Function::TopLevel),
            name: None,
            ignore_listed: true,
            code_frame: None,
            today: Some(TodayPosition {
                line: 6,
                column: 23,
                status: Status::Moved,
            }),
            ..answer()
        };
        let md = HoverAnswer::Original(Box::new(moved)).markdown();
        assert!(md.starts_with("**`../src/orders.ts:5:24`** (top level) *(ignore-listed)*\n\nIn the build: `../src/orders.ts:5:24`; in your file now: `:7:24`"), "{md}");
        assert!(md.ends_with("*sourcemap-ls · app.js.map*"), "{md}");
    }

    #[test]
    fn no_answer_says_why() {
        let none = HoverAnswer::NoAnswer {
            why: "the map does not fit".into(),
            at: LineSpan::at(3, 7),
        };
        assert_eq!(none.markdown(), "**No answer here** — the map does not fit");
        assert_eq!(none.span(), LineSpan::at(3, 7));
    }

    #[test]
    fn plain_text_keeps_the_information() {
        let md = "**`src/a.js:5:24`** in `parseOrder` — `map`\n\n```js\n> 5 | x.map(f => `${f * 2}`)\n```\n\n*sourcemap-ls · a.js.map*";
        assert_eq!(
            plain_text(md),
            "src/a.js:5:24 in parseOrder — map\n\n> 5 | x.map(f => `${f * 2}`)\n\nsourcemap-ls · a.js.map\n"
        );
    }

    #[test]
    fn fences_by_extension() {
        assert_eq!(fence_language("webpack:///./src/a.tsx?abc"), "tsx");
        assert_eq!(fence_language("/x/y.mjs"), "js");
        assert_eq!(fence_language("README"), "");
    }
}
