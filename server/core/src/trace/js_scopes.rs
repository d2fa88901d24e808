//! Function scopes of JavaScript (or TypeScript / JSX) text: where each function starts and ends, and which tokens
//! name it. Built once per file with `oxc_parser`, then the syntax tree is dropped.
//!
//! A function's name is what V8 and every debugger call it: its own identifier (`function f`, `class C`), else the
//! binding it is assigned to (`var x = function`, `x = () =>`, `a.b.c = function`, `{ key: function }`, `key() {}`,
//! class members as `Class.method`, `export default` as `default`). The name is kept as tokens with their positions
//! rather than text, so that in a minified file each token can be looked up in the source map: the token `e` of
//! `function e(` maps to the original name `arrayMap`. Callbacks passed as arguments have no name (V8 prints none).
//!
//! Cost: 32 B per function plus 20 B per name part (an identifier or a `.`), plus the parts' text (short in minified
//! code); nothing of the syntax tree is kept. Positions are 0-based lines and UTF-16 columns, the map's convention.

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    AssignmentTarget, BindingPattern, Class, Expression, Function, IdentifierName,
    MethodDefinitionKind, PropertyKey, PropertyKind,
};
use oxc_ast::AstKind;
use oxc_ast_visit::Visit;
use oxc_parser::{ParseOptions, Parser};
use oxc_span::{GetSpan, SourceType, Span};

use crate::trace::sfc_scripts::{component_code, is_component, ComponentCode};

/// A position in the text: 0-based line, 0-based UTF-16 column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TextPosition {
    /// 0-based.
    pub line: u32,
    /// 0-based, in UTF-16 code units.
    pub column: u32,
}

/// One part of a function's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamePart {
    /// Where the identifier starts; `None` for fixed text (`.`, `default`, a string key).
    pub token: Option<TextPosition>,
    text: (u32, u32),
}

/// One function: its extent and its name parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scope {
    start: TextPosition,
    end: TextPosition,
    /// Index of the enclosing function, `u32::MAX` at the top level.
    parent: u32,
    /// Range in `FunctionScopes::parts`; empty for an anonymous function.
    parts: (u32, u32),
    /// How many leading parts qualify the name (`Class` and `.` of `Class.method`) and may be dropped.
    qualifier: u8,
}

/// See the module documentation.
#[derive(Debug, Default)]
pub struct FunctionScopes {
    /// In order of their start (a function before the functions inside it).
    scopes: Vec<Scope>,
    parts: Vec<NamePart>,
    text: String,
    /// The stretches of the text that are code, where only some are (a component's `<script>` blocks,
    /// `sfc_scripts`); empty: all of it.
    code: Vec<(TextPosition, TextPosition)>,
}

/// A function found around a position.
#[derive(Debug, Clone, Copy)]
pub struct FunctionAt<'a> {
    /// Where the function starts (a method's or accessor's whole definition, its key included).
    pub start: TextPosition,
    /// Where the function ends (exclusive).
    pub end: TextPosition,
    /// The name's parts, qualifier first; empty when the function is anonymous.
    pub parts: &'a [NamePart],
    /// How many leading parts qualify the name (`Class`, `.`); the name without them is still a name.
    pub qualifier: usize,
    scopes: &'a FunctionScopes,
}

impl<'a> FunctionAt<'a> {
    /// The text of `part`, one of this function's name parts.
    pub fn text(&self, part: &NamePart) -> &'a str {
        self.scopes.part_text(part)
    }

    /// The name as written in the text (`Class.method`, `a.b`), `None` when anonymous.
    pub fn written_name(&self) -> Option<String> {
        (!self.parts.is_empty()).then(|| self.parts.iter().map(|p| self.text(p)).collect())
    }
}

/// How to read the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// A bundle: JavaScript, script or module as its syntax says.
    Generated,
    /// An original source, by its file name (`.ts`, `.tsx`, `.jsx`, `.mjs`…); `.js` allows JSX.
    Original,
}

/// Why no table could be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeError(pub String);

impl FunctionScopes {
    /// Parses `text` (named `file_name`, for its dialect) and keeps only its function scopes. Recoverable syntax
    /// errors still give a table (the parser's tree is complete); an unrecoverable one is an error.
    pub fn parse(text: &str, file_name: &str, dialect: Dialect) -> Result<Self, ScopeError> {
        // A component's source with `<script>` blocks; a module generated from one (vue-loader's `App.vue?6112`,
        // compiled JavaScript) is read as it is.
        if let Some(code) = (dialect == Dialect::Original && is_component(file_name))
            .then(|| component_code(text))
            .flatten()
        {
            return Self::parse_component(text, code);
        }
        parse_part(
            text,
            0..text.len(),
            TextPosition::default(),
            file_name,
            dialect,
            false,
        )
    }

    /// The function scopes of `range` of `text` alone, read as a list of statements (a function body, or a run of
    /// its statements: see `js_slices`), with positions in the whole text; `start` is the position of `range.start`.
    /// Only a reading without a single error counts (a cut in the wrong place is an error): otherwise an error.
    pub fn parse_part(
        text: &str,
        range: std::ops::Range<usize>,
        start: TextPosition,
        file_name: &str,
        dialect: Dialect,
    ) -> Result<Self, ScopeError> {
        parse_part(text, range, start, file_name, dialect, true)
    }

    /// A single-file component's `<script>` blocks, read in place (`sfc_scripts`).
    fn parse_component(text: &str, code: ComponentCode) -> Result<Self, ScopeError> {
        let name = if code.typescript {
            "component.ts"
        } else {
            "component.js"
        };
        let mut scopes = parse_part(
            &code.text,
            0..code.text.len(),
            TextPosition::default(),
            name,
            Dialect::Original,
            false,
        )?;
        let ends: Vec<usize> = code.blocks.iter().flat_map(|b| [b.start, b.end]).collect();
        let at = positions_from(text, (0, TextPosition::default()), &ends);
        scopes.code = at.chunks(2).map(|p| (p[0], p[1])).collect();
        Ok(scopes)
    }

    /// Whether the table speaks for position `p`: the whole text does, a component's only inside its `<script>`
    /// blocks (a template's handlers are the compiler's functions: the table does not know them).
    pub fn reads(&self, p: TextPosition) -> bool {
        self.code.is_empty() || self.code.iter().any(|&(start, end)| start <= p && p < end)
    }

    /// How many functions the table holds.
    pub fn len(&self) -> usize {
        self.scopes.len()
    }

    /// Whether the text has no function.
    pub fn is_empty(&self) -> bool {
        self.scopes.is_empty()
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.scopes.capacity() * std::mem::size_of::<Scope>()
            + self.parts.capacity() * std::mem::size_of::<NamePart>()
            + self.text.capacity()
            + self.code.capacity() * std::mem::size_of::<(TextPosition, TextPosition)>()
    }

    fn part_text(&self, part: &NamePart) -> &str {
        &self.text[part.text.0 as usize..part.text.1 as usize]
    }

    fn at(&self, i: usize) -> FunctionAt<'_> {
        let s = &self.scopes[i];
        FunctionAt {
            start: s.start,
            end: s.end,
            parts: &self.parts[s.parts.0 as usize..s.parts.1 as usize],
            qualifier: s.qualifier as usize,
            scopes: self,
        }
    }

    /// The innermost function whose extent holds `p` (start inclusive, end exclusive); `None` at the top level.
    pub fn innermost(&self, p: TextPosition) -> Option<FunctionAt<'_>> {
        // Scopes are in pre-order: the last one starting at or before `p` either holds it or one of its ancestors
        // does.
        let mut i = self
            .scopes
            .partition_point(|s| s.start <= p)
            .checked_sub(1)?;
        loop {
            let s = &self.scopes[i];
            if p < s.end {
                return Some(self.at(i));
            }
            if s.parent == u32::MAX {
                return None;
            }
            i = s.parent as usize;
        }
    }

    /// Every function, in order of start (for tests and tools).
    pub fn iter(&self) -> impl Iterator<Item = FunctionAt<'_>> {
        (0..self.scopes.len()).map(|i| self.at(i))
    }
}

fn parse_part(
    text: &str,
    range: std::ops::Range<usize>,
    start: TextPosition,
    file_name: &str,
    dialect: Dialect,
    strict: bool,
) -> Result<FunctionScopes, ScopeError> {
    // oxc positions are u32 byte offsets.
    if text.len() >= u32::MAX as usize {
        return Err(ScopeError("file too large to parse".into()));
    }
    let part = text
        .get(range.clone())
        .ok_or_else(|| ScopeError("not a part of the text".into()))?;
    let allocator = Allocator::default();
    let mut last_error = None;
    for source_type in source_types(file_name, dialect) {
        let ret = Parser::new(&allocator, part, source_type)
            .with_options(ParseOptions {
                allow_return_outside_function: true,
                parse_regular_expression: false,
                ..ParseOptions::default()
            })
            .parse();
        if ret.panicked || (strict && !ret.diagnostics.is_empty()) {
            last_error = Some(
                ret.diagnostics
                    .first()
                    .map(|d| d.to_string())
                    .unwrap_or_else(|| "syntax error".into()),
            );
            continue;
        }
        let mut collector = Collector::default();
        collector.visit_program(&ret.program);
        return Ok(collector.finish(text, range.start, start));
    }
    Err(ScopeError(
        last_error.unwrap_or_else(|| "syntax error".into()),
    ))
}

/// Whether `file_name` is read as TypeScript (by its extension; a bundle never is).
pub fn may_be_typescript(file_name: &str, dialect: Dialect) -> bool {
    source_types(file_name, dialect)
        .iter()
        .any(|t| t.is_typescript())
}

fn source_types(file_name: &str, dialect: Dialect) -> Vec<SourceType> {
    let unambiguous = SourceType::unambiguous();
    match dialect {
        Dialect::Generated => vec![unambiguous],
        Dialect::Original => {
            let path = file_name.split(['?', '#']).next().unwrap_or(file_name);
            match SourceType::from_path(path) {
                Ok(t) if t.is_typescript() => vec![t.with_unambiguous(true)],
                // `.js` files often hold JSX (React); plain JavaScript is a fallback for the rare file where the
                // JSX reading fails (`a < b > c`).
                Ok(t) => vec![t.with_unambiguous(true).with_jsx(true), unambiguous],
                Err(_) => vec![unambiguous.with_jsx(true), unambiguous],
            }
        }
    }
}

/// A name part while collecting: byte offset of an identifier, or fixed text.
#[derive(Debug, Clone)]
enum RawPart<'a> {
    Token(u32, &'a str),
    Text(&'a str),
}

#[derive(Default)]
struct Collector<'a> {
    ancestors: Vec<AstKind<'a>>,
    /// The enclosing recorded function of each ancestor level that is a function.
    open: Vec<(usize, u32)>,
    raw: Vec<RawScope<'a>>,
}

struct RawScope<'a> {
    span: Span,
    parent: u32,
    parts: Vec<RawPart<'a>>,
    qualifier: u8,
}

impl<'a> Collector<'a> {
    /// The nearest ancestor at or above `depth` that is not a transparent wrapper (parentheses, TypeScript casts),
    /// nor a choice the named node is one side of (`c ? function () {} : g`, `a || function () {}`): V8 names a
    /// function there after the variable or key it ends up in (`var getSymbols = native ? stub : function (o) {…}`
    /// runs as `getSymbols` in its stack traces and profiles; checked on lodash in `fixtures/profiles`). `child` is
    /// the span of the node below `depth`.
    fn parent_at(&self, mut depth: usize, mut child: Span) -> Option<(usize, AstKind<'a>)> {
        loop {
            let kind = *self.ancestors.get(depth)?;
            let transparent = match kind {
                AstKind::ParenthesizedExpression(_)
                | AstKind::TSAsExpression(_)
                | AstKind::TSSatisfiesExpression(_)
                | AstKind::TSNonNullExpression(_)
                | AstKind::TSTypeAssertion(_) => true,
                AstKind::ConditionalExpression(c) => c.test.span() != child,
                AstKind::LogicalExpression(l) => l.right.span() == child,
                _ => false,
            };
            if !transparent {
                return Some((depth, kind));
            }
            child = kind.span();
            depth = depth.checked_sub(1)?;
        }
    }

    /// The name a function or class gets from where it stands (the node itself is `ancestors[depth + 1]`).
    fn name_from_context(&self, depth: Option<usize>, node: Span) -> (Vec<RawPart<'a>>, u8) {
        let Some((d, parent)) = depth.and_then(|d| self.parent_at(d, node)) else {
            return (Vec::new(), 0);
        };
        match parent {
            AstKind::VariableDeclarator(v) => (binding_name(&v.id), 0),
            AstKind::AssignmentPattern(a) => (binding_name(&a.left), 0),
            AstKind::AssignmentExpression(a) => (assignment_target_name(&a.left), 0),
            AstKind::ObjectProperty(p) if !p.computed => (key_name(&p.key), 0),
            AstKind::MethodDefinition(m) if !m.computed => {
                if m.kind == MethodDefinitionKind::Constructor {
                    return (self.class_name(d), 0);
                }
                qualified(self.class_name(d), key_name(&m.key))
            }
            AstKind::PropertyDefinition(p) if !p.computed => {
                qualified(self.class_name(d), key_name(&p.key))
            }
            AstKind::ExportDefaultDeclaration(_) => (vec![RawPart::Text("default")], 0),
            _ => (Vec::new(), 0),
        }
    }

    /// The name of the class whose member stands at `depth` (member → class body → class).
    fn class_name(&self, member_depth: usize) -> Vec<RawPart<'a>> {
        let Some(class_depth) = member_depth.checked_sub(2) else {
            return Vec::new();
        };
        match self.ancestors.get(class_depth) {
            Some(AstKind::Class(c)) => self.class_own_name(c, class_depth),
            _ => Vec::new(),
        }
    }

    fn class_own_name(&self, c: &Class<'a>, depth: usize) -> Vec<RawPart<'a>> {
        match &c.id {
            Some(id) => vec![RawPart::Token(id.span.start, id.name.as_str())],
            None => self.name_from_context(depth.checked_sub(1), c.span).0,
        }
    }

    fn function_name(&self, f: &Function<'a>) -> (Vec<RawPart<'a>>, u8) {
        if let Some(id) = &f.id {
            // A method's own function node has no id; a named function expression keeps its own name (V8 does).
            return (vec![RawPart::Token(id.span.start, id.name.as_str())], 0);
        }
        self.name_from_context(self.ancestors.len().checked_sub(1), f.span)
    }

    fn record(&mut self, span: Span, (parts, qualifier): (Vec<RawPart<'a>>, u8)) {
        let parent = self.open.last().map_or(u32::MAX, |&(_, i)| i);
        self.open
            .push((self.ancestors.len(), self.raw.len() as u32));
        self.raw.push(RawScope {
            span,
            parent,
            parts,
            qualifier,
        });
    }

    /// Converts byte offsets (of the part of `text` from `base`, whose position is `base_position`) to lines and
    /// UTF-16 columns of `text`, in one sweep over the part.
    fn finish(self, text: &str, base: usize, base_position: TextPosition) -> FunctionScopes {
        let mut offsets: Vec<u32> = Vec::with_capacity(self.raw.len() * 3);
        for s in &self.raw {
            offsets.push(s.span.start);
            offsets.push(s.span.end);
            for p in &s.parts {
                if let RawPart::Token(o, _) = p {
                    offsets.push(*o);
                }
            }
        }
        offsets.sort_unstable();
        offsets.dedup();
        let absolute: Vec<usize> = offsets.iter().map(|&o| base + o as usize).collect();
        let positions = positions_from(text, (base, base_position), &absolute);
        let at = |o: u32| {
            positions[offsets
                .binary_search(&o)
                .expect("every offset was collected")]
        };

        let mut out = FunctionScopes {
            scopes: Vec::with_capacity(self.raw.len()),
            ..FunctionScopes::default()
        };
        for s in &self.raw {
            let first = out.parts.len() as u32;
            for p in &s.parts {
                let (token, t) = match p {
                    RawPart::Token(o, t) => (Some(at(*o)), *t),
                    RawPart::Text(t) => (None, *t),
                };
                let begin = out.text.len() as u32;
                out.text.push_str(t);
                out.parts.push(NamePart {
                    token,
                    text: (begin, out.text.len() as u32),
                });
            }
            out.scopes.push(Scope {
                start: at(s.span.start),
                end: at(s.span.end),
                parent: s.parent,
                parts: (first, out.parts.len() as u32),
                qualifier: s.qualifier,
            });
        }
        out.scopes.shrink_to_fit();
        out.parts.shrink_to_fit();
        out.text.shrink_to_fit();
        out
    }
}

impl<'a> Visit<'a> for Collector<'a> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        match kind {
            AstKind::Function(f) if f.body.is_some() => {
                let name = self.function_name(f);
                // A method's function node starts at its `(`; the method is its whole definition, key included: V8
                // reports a method's profile node at that `(`, which maps to the key (`paragraph() {`), and the
                // function is the one defined there.
                let span = match self.ancestors.last() {
                    Some(AstKind::MethodDefinition(m)) => Span::new(m.span.start, f.span.end),
                    Some(AstKind::ObjectProperty(p))
                        if p.method || p.kind != PropertyKind::Init =>
                    {
                        Span::new(p.span.start, f.span.end)
                    }
                    _ => f.span,
                };
                self.record(span, name);
            }
            AstKind::ArrowFunctionExpression(a) => {
                let name = self.name_from_context(self.ancestors.len().checked_sub(1), a.span);
                self.record(a.span, name);
            }
            _ => {}
        }
        self.ancestors.push(kind);
    }

    fn leave_node(&mut self, _kind: AstKind<'a>) {
        self.ancestors.pop();
        if self
            .open
            .last()
            .is_some_and(|&(depth, _)| depth == self.ancestors.len())
        {
            self.open.pop();
        }
    }
}

fn qualified<'a>(class: Vec<RawPart<'a>>, key: Vec<RawPart<'a>>) -> (Vec<RawPart<'a>>, u8) {
    if key.is_empty() || class.is_empty() {
        return (key, 0);
    }
    let qualifier = (class.len() + 1).min(u8::MAX as usize) as u8;
    let mut parts = class;
    parts.push(RawPart::Text("."));
    parts.extend(key);
    (parts, qualifier)
}

fn binding_name<'a>(pattern: &BindingPattern<'a>) -> Vec<RawPart<'a>> {
    match pattern {
        BindingPattern::BindingIdentifier(id) => {
            vec![RawPart::Token(id.span.start, id.name.as_str())]
        }
        _ => Vec::new(),
    }
}

fn key_name<'a>(key: &PropertyKey<'a>) -> Vec<RawPart<'a>> {
    match key {
        PropertyKey::StaticIdentifier(id) => vec![RawPart::Token(id.span.start, id.name.as_str())],
        PropertyKey::PrivateIdentifier(id) => {
            // `#x`: the token starts at `#`, the name has none.
            vec![
                RawPart::Text("#"),
                RawPart::Token(id.span.start + 1, id.name.as_str()),
            ]
        }
        // String keys are not renamed by minifiers: their text is the name.
        PropertyKey::StringLiteral(s) => vec![RawPart::Text(s.value.as_str())],
        _ => Vec::new(),
    }
}

fn assignment_target_name<'a>(target: &AssignmentTarget<'a>) -> Vec<RawPart<'a>> {
    match target {
        AssignmentTarget::AssignmentTargetIdentifier(id) => {
            vec![RawPart::Token(id.span.start, id.name.as_str())]
        }
        AssignmentTarget::StaticMemberExpression(m) => member_name(&m.object, &m.property),
        _ => Vec::new(),
    }
}

/// `a.b.c` of `a.b.c = function`, the object's path first; `this` and anything computed are left out of the path
/// (V8 leaves out `this` too).
fn member_name<'a>(object: &Expression<'a>, property: &IdentifierName<'a>) -> Vec<RawPart<'a>> {
    let mut parts = match object {
        Expression::Identifier(id) => vec![RawPart::Token(id.span.start, id.name.as_str())],
        Expression::StaticMemberExpression(m) => member_name(&m.object, &m.property),
        _ => Vec::new(),
    };
    if !parts.is_empty() {
        parts.push(RawPart::Text("."));
    }
    parts.push(RawPart::Token(property.span.start, property.name.as_str()));
    parts
}

/// Lines and UTF-16 columns of sorted byte `offsets` at or after `from.0` (whose position is `from.1`), in one pass
/// over `text` from there.
pub fn positions_from(
    text: &str,
    from: (usize, TextPosition),
    offsets: &[usize],
) -> Vec<TextPosition> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(offsets.len());
    let (
        mut at,
        TextPosition {
            mut line,
            mut column,
        },
    ) = from;
    let mut careful_until = at;
    for &o in offsets {
        let o = o.min(bytes.len()).max(at);
        // Whole lines are skipped to their breaks, a chunk of plain lines at a time where there are such; the
        // columns of the last line counted once.
        loop {
            if at >= careful_until {
                let skipped = skip_plain_chunks(bytes, at, o, u32::MAX);
                if skipped.breaks > 0 {
                    line += skipped.breaks;
                    column = utf16_units(&bytes[skipped.line_start..skipped.at]);
                } else {
                    column += utf16_units(&bytes[at..skipped.at]);
                }
                at = skipped.at;
                careful_until = skipped.careful_until;
            }
            let Some(i) = memchr::memchr3(b'\n', b'\r', 0xE2, &bytes[at..o]) else {
                break;
            };
            let i = at + i;
            let (len, is_break) = step(bytes, i);
            if is_break {
                line += 1;
                column = 0;
                at = i + len;
            } else {
                column += utf16_units(&bytes[at..i + len.min(o - i)]);
                at = (i + len).min(o);
            }
        }
        column += utf16_units(&bytes[at..o]);
        at = o;
        out.push(TextPosition { line, column });
    }
    out
}

/// Bytes per chunk [`skip_plain_chunks`] counts at once.
const PLAIN_CHUNK: usize = 4096;

/// Where a [`skip_plain_chunks`] stopped.
struct Skipped {
    at: usize,
    /// Line breaks passed.
    breaks: u32,
    /// Just past the last of them (where the skip started, when none).
    line_start: usize,
    /// Read line by line up to here before skipping again: past the `\r` or 0xE2 byte that stopped the skip, or the
    /// end of the chunk it would not take.
    careful_until: usize,
}

/// Skips whole chunks of `bytes[at..end]` while each holds fewer line breaks than are left of `lines`, counting its
/// `\n`s at once: unminified code's lines are ~40 bytes, and finding them one `memchr3` at a time was a quarter of
/// naming a large bundle's frames (`perf`, the many-libraries bundle). A chunk holding a `\r` or a byte 0xE2 (which
/// may start U+2028 or U+2029) stops the skip: the caller reads it line by line.
fn skip_plain_chunks(bytes: &[u8], mut at: usize, end: usize, lines: u32) -> Skipped {
    let (mut breaks, mut line_start) = (0u32, at);
    let careful_until = loop {
        if at + PLAIN_CHUNK > end {
            break at + PLAIN_CHUNK;
        }
        let chunk = &bytes[at..at + PLAIN_CHUNK];
        if let Some(i) = memchr::memchr2(b'\r', 0xE2, chunk) {
            break at + i + 1;
        }
        let n = memchr::memchr_iter(b'\n', chunk).count() as u32;
        if breaks + n >= lines {
            break at + PLAIN_CHUNK;
        }
        if n > 0 {
            breaks += n;
            line_start = at + memchr::memrchr(b'\n', chunk).expect("a break") + 1;
        }
        at += PLAIN_CHUNK;
    };
    Skipped {
        at,
        breaks,
        line_start,
        careful_until,
    }
}

/// UTF-16 units of whole UTF-8 characters: one per character, two for one of four bytes.
fn utf16_units(bytes: &[u8]) -> u32 {
    let characters = bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
    let astral = bytes.iter().filter(|&&b| b >= 0xF0).count();
    (characters + astral) as u32
}

/// Byte offsets of sorted `positions` at or after `from.1` (whose offset is `from.0`) in `text`, in one pass from
/// there; `None` for a position past its line's end or past the text, or inside a character that takes two UTF-16
/// units.
pub fn offsets_of(
    text: &str,
    from: (usize, TextPosition),
    positions: &[TextPosition],
) -> Vec<Option<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(positions.len());
    let (
        mut at,
        TextPosition {
            mut line,
            mut column,
        },
    ) = from;
    let mut careful_until = at;
    for &p in positions {
        // Whole lines first (to their breaks, a chunk of plain lines at a time where there are such), then columns.
        while line < p.line && at < bytes.len() {
            if at >= careful_until {
                // Short of the target line's break: its column is read from a break below.
                let skipped = skip_plain_chunks(bytes, at, bytes.len(), p.line - line);
                line += skipped.breaks;
                at = skipped.at;
                careful_until = skipped.careful_until;
            }
            let Some(i) = memchr::memchr3(b'\n', b'\r', 0xE2, &bytes[at..]) else {
                at = bytes.len();
                break;
            };
            let (len, is_break) = step(bytes, at + i);
            at += i + len;
            if is_break {
                line += 1;
                column = 0;
            }
        }
        while line == p.line && column < p.column && at < bytes.len() {
            let want = (p.column - column) as usize;
            let plain = plain_ascii_end(bytes, at, bytes.len().min(at + want));
            column += (plain - at) as u32;
            at = plain;
            if column == p.column || at == bytes.len() {
                break;
            }
            let (len, is_break) = step(bytes, at);
            if is_break {
                break;
            }
            let width = if len == 4 { 2 } else { 1 };
            if column + width > p.column {
                break;
            }
            at += len;
            column += width;
        }
        out.push((line == p.line && column == p.column).then_some(at));
    }
    out
}

/// The first byte in `from..to` that is not plain ASCII (a line break or the start of a multi-byte character), or
/// `to`. Eight bytes at a time.
fn plain_ascii_end(bytes: &[u8], mut from: usize, to: usize) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let has_byte = |w: u64, b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGH != 0
    };
    while from + 8 <= to {
        let w = u64::from_le_bytes(bytes[from..from + 8].try_into().expect("eight bytes"));
        if w & HIGH != 0 || has_byte(w, b'\n') || has_byte(w, b'\r') {
            break;
        }
        from += 8;
    }
    while from < to {
        let b = bytes[from];
        if b >= 0x80 || b == b'\n' || b == b'\r' {
            return from;
        }
        from += 1;
    }
    to
}

/// The character at `at`: its length in bytes, and whether it ends a line. Lines end at \n, \r\n, \r, U+2028 and
/// U+2029, as in source maps.
fn step(bytes: &[u8], at: usize) -> (usize, bool) {
    let b = bytes[at];
    let len = utf8_len(b);
    let is_break = b == b'\n'
        || (b == b'\r' && bytes.get(at + 1) != Some(&b'\n'))
        || (b == 0xE2
            && bytes.get(at + 1) == Some(&0x80)
            && matches!(bytes.get(at + 2), Some(0xA8 | 0xA9)));
    (len, is_break)
}

/// The length of the UTF-8 character whose first byte is `b`.
pub(crate) fn utf8_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests;
