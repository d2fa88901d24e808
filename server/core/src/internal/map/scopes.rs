//! The ECMA-426 **scopes** proposal (Stage 3): decoding the `scopes` field into original scope trees (one per source)
//! and generated range trees.
//!
//! Encoding, as the tc39 `decoding/scopes` goldens and the proposal text (`proposals/scopes.md`,
//! tc39.es/ecma426/branch/proposal-scopes) define it: `scopes` is a list of items separated by `,`; each item is an
//! unsigned-VLQ tag followed by VLQ fields:
//!
//! | tag | item | fields |
//! | --- | --- | --- |
//! | `A` 0x0 | empty (no scope tree for this source) | — |
//! | `B` 0x1 | original scope start | uFLAGS uLINE uCOLUMN sNAME? (flag 0x1) sKIND? (flag 0x2); flag 0x4 = stack frame |
//! | `C` 0x2 | original scope end | uLINE uCOLUMN |
//! | `D` 0x3 | original scope variables | sVARIABLE* |
//! | `E` 0x4 | generated range start | uFLAGS uLINE? (flag 0x1) uCOLUMN sDEFINITION? (flag 0x2); 0x4 stack frame, 0x8 hidden |
//! | `F` 0x5 | generated range end | uLINE? uCOLUMN (one value: column only; two: line and column) |
//! | `G` 0x6 | generated range bindings | uBINDING* (1-based index into `names`, 0 = unavailable) |
//! | `H` 0x7 | sub-range binding | uVARIABLE_INDEX (uLINE uCOLUMN uBINDING)+ |
//! | `I` 0x8 | call site | uSOURCE uLINE uCOLUMN (absolute) |
//!
//! Relative values: positions are relative to the previous position of the same kind (original scope start/end, or
//! generated range start/end); a line delta of 0 makes the column relative too, a non-zero one makes it absolute.
//! Each top-level original scope tree restarts its positions at (0, 0). Names, kinds and variables are signed deltas,
//! each against its own running index, never reset. `sDEFINITION` is a signed delta into the pre-order list of all
//! original scopes (sources in order). A sub-range binding's first position is relative to its range's start, the
//! following ones to the previous one of the same item.
//!
//! Strictness, decided here: input the grammar does not produce, or that the spec says to "optionally report an error"
//! for, is an `Err` (never a panic, never a silently partial result). The deliberate leniencies are: an item with an
//! unknown tag is skipped (the proposal reserves them for extensions), extra trailing VLQs of a start item (`B`, `E`)
//! are skipped (the proposal keeps start items extensible), unknown flag bits are ignored, an empty item stands for
//! "no scope tree" like `A`, and sources after the last scope tree have none.

use crate::internal::map::names::NameTable;
use crate::internal::map::vlq::{decode_signed, decode_unsigned, is_digit, VlqError};

/// A scope in an original (authored) source. Positions are 0-based `(line, column)`; `end` is exclusive.
#[derive(Debug, Clone, PartialEq)]
pub struct OriginalScope {
    /// Where the scope starts.
    pub start: (u32, u32),
    /// Where it ends (exclusive).
    pub end: (u32, u32),
    /// Its name, from `names`.
    pub name: Option<String>,
    /// Its kind as the generator wrote it, from `names`.
    pub kind: Option<String>,
    /// Flag 0x4: a function that shows up as a stack frame of its own.
    pub is_stack_frame: bool,
    /// The variables it declares, from `names`, in order (a generated range's `bindings` follow this order).
    pub variables: Vec<String>,
    /// Scopes nested inside, in order.
    pub children: Vec<OriginalScope>,
}

/// How a generated range appears in a stack trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackFrameType {
    /// Not a stack frame of its own.
    None,
    /// A stack frame, shown as the function of its `definition`.
    Original,
    /// A stack frame that debuggers should hide (flags 0x4 and 0x8).
    Hidden,
}

/// From `from` on (until the next binding of the same variable or the range's end), the variable's value is the
/// JavaScript expression `binding`; `None`: unavailable.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// Generated (line, column) where the binding starts.
    pub from: (u32, u32),
    /// The expression, from `names`.
    pub binding: Option<String>,
}

/// A range of the generated code. Positions are 0-based `(line, column)`; `end` is exclusive.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedRange {
    /// Where the range starts.
    pub start: (u32, u32),
    /// Where it ends (exclusive).
    pub end: (u32, u32),
    /// Index into [`DecodedScopes::flattened`].
    pub definition: Option<usize>,
    /// How the range shows in a stack trace (flags 0x4 and 0x8).
    pub stack_frame_type: StackFrameType,
    /// One list per variable of the definition scope; the first binding of each starts at `start`.
    pub bindings: Vec<Vec<Binding>>,
    /// `(source index, line, column)` of the call an inlined function body stands for.
    pub call_site: Option<(u32, u32, u32)>,
    /// Ranges nested inside, in order.
    pub children: Vec<GeneratedRange>,
}

/// The decoded `scopes` field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DecodedScopes {
    /// One entry per source, in order; `None` where the source has no scope tree.
    pub scopes: Vec<Option<OriginalScope>>,
    /// The top-level generated ranges, in order.
    pub ranges: Vec<GeneratedRange>,
}

const TAG_EMPTY: u64 = 0x0;
const TAG_ORIGINAL_SCOPE_START: u64 = 0x1;
const TAG_ORIGINAL_SCOPE_END: u64 = 0x2;
const TAG_ORIGINAL_SCOPE_VARIABLES: u64 = 0x3;
const TAG_GENERATED_RANGE_START: u64 = 0x4;
const TAG_GENERATED_RANGE_END: u64 = 0x5;
const TAG_GENERATED_RANGE_BINDINGS: u64 = 0x6;
const TAG_GENERATED_RANGE_SUBRANGE_BINDING: u64 = 0x7;
const TAG_GENERATED_RANGE_CALL_SITE: u64 = 0x8;

const SCOPE_HAS_NAME: u64 = 0x1;
const SCOPE_HAS_KIND: u64 = 0x2;
const SCOPE_IS_STACK_FRAME: u64 = 0x4;

const RANGE_HAS_LINE: u64 = 0x1;
const RANGE_HAS_DEFINITION: u64 = 0x2;
const RANGE_IS_STACK_FRAME: u64 = 0x4;
const RANGE_IS_HIDDEN: u64 = 0x8;
/// Why the `scopes` field could not be decoded. The messages are the ones users see.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ScopesError {
    /// One item is malformed or out of place.
    #[error("scopes: item {item} (byte {byte}): {problem}")]
    Item {
        /// The item, 0-based.
        item: usize,
        /// Where decoding stopped, in bytes from the field's start.
        byte: usize,
        /// What is wrong.
        problem: ItemProblem,
    },
    /// The field is not a JSON string.
    #[error("scopes: {0}")]
    NotAString(std::sync::Arc<serde_json::Error>),
    /// This many original scopes were started and never ended.
    #[error("scopes: {0} original scope(s) not ended")]
    ScopesNotEnded(usize),
    /// This many generated ranges were started and never ended.
    #[error("scopes: {0} generated range(s) not ended")]
    RangesNotEnded(usize),
    /// More original scope trees than the map has sources.
    #[error("scopes: {trees} original scope entries for {sources} sources")]
    MoreTreesThanSources {
        /// The trees.
        trees: usize,
        /// The map's sources.
        sources: usize,
    },
}

/// What is wrong with one item of `scopes`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ItemProblem {
    /// A field the item needs is missing.
    #[error("missing {0}")]
    Missing(&'static str),
    /// A field is not a valid VLQ.
    #[error("{what}: {error}")]
    Vlq {
        /// The field.
        what: &'static str,
        /// Why.
        error: VlqError,
    },
    /// A field's value does not fit 32 bits.
    #[error("{what} {value} does not fit 32 bits")]
    TooLarge {
        /// The field.
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// A byte that is not a base64 digit.
    #[error("{0:?} is not a base64 digit")]
    NotADigit(char),
    /// The field ends with the continuation bit set.
    #[error("VLQ ends in the middle of a number (continuation bit set)")]
    Unterminated,
    /// The item has fields after the ones it defines.
    #[error("{0} item has extra fields")]
    ExtraFields(&'static str),
    /// A name index outside `names`.
    #[error("{what} index {index} is outside `names` (length {len})")]
    NameOutside {
        /// Whose name.
        what: &'static str,
        /// The index.
        index: i64,
        /// How many names the map has.
        len: usize,
    },
    /// A binding's name index (1-based) outside `names`.
    #[error("binding {value} (1-based) is outside `names` (length {len})")]
    BindingOutside {
        /// The 1-based index.
        value: u64,
        /// How many names the map has.
        len: usize,
    },
    /// A position that does not fit 32 bits once accumulated.
    #[error("position does not fit 32 bits")]
    PositionTooLarge,
    /// An item where the format does not allow it (the message says which and where).
    #[error("{0}")]
    OutOfPlace(&'static str),
    /// A generated range's definition that is not an original scope.
    #[error("definition {index} is not an original scope (there are {count})")]
    NotAScope {
        /// The definition index.
        index: i64,
        /// How many original scopes there are.
        count: usize,
    },
    /// A bindings item whose length is not its definition's variable count.
    #[error("{got} bindings for a definition scope with {expected} variables")]
    BindingCount {
        /// Bindings given.
        got: usize,
        /// Variables of the definition scope.
        expected: usize,
    },
    /// A sub-range binding whose values are not (line, column, binding) triples.
    #[error("sub-range binding needs (line, column, binding) triples, got {0} values")]
    SubRangeValues(usize),
    /// A second sub-range binding item for one variable.
    #[error("second sub-range binding item for variable {0}")]
    SecondSubRange(usize),
    /// A call site's source outside `sources`.
    #[error("call site source {index} is outside `sources` (length {len})")]
    CallSiteSource {
        /// The source index.
        index: u32,
        /// How many sources the map has.
        len: usize,
    },
    /// A generated range end with neither 1 nor 2 values.
    #[error("generated range end has {0} values, expected 1 or 2")]
    RangeEndValues(usize),
    /// A sub-range binding for a variable the range has no binding for.
    #[error("sub-range binding for variable {variable}, but the range has {len} bindings")]
    SubRangeVariable {
        /// The variable index.
        variable: usize,
        /// The range's bindings.
        len: usize,
    },
}

/// The VLQs of one item.
struct Fields<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// 0-based item number and byte offset of the item in the field, for messages.
    item: usize,
    offset: usize,
}

impl Fields<'_> {
    fn err(&self, problem: ItemProblem) -> ScopesError {
        ScopesError::Item {
            item: self.item,
            byte: self.offset + self.pos,
            problem,
        }
    }

    fn has_more(&self) -> bool {
        self.pos < self.bytes.len()
    }

    fn unsigned(&mut self, what: &'static str) -> Result<u64, ScopesError> {
        if !self.has_more() {
            return Err(self.err(ItemProblem::Missing(what)));
        }
        decode_unsigned(self.bytes, &mut self.pos)
            .map_err(|error| self.err(ItemProblem::Vlq { what, error }))
    }

    fn unsigned_u32(&mut self, what: &'static str) -> Result<u32, ScopesError> {
        let v = self.unsigned(what)?;
        u32::try_from(v).map_err(|_| self.err(ItemProblem::TooLarge { what, value: v }))
    }

    fn signed(&mut self, what: &'static str) -> Result<i64, ScopesError> {
        if !self.has_more() {
            return Err(self.err(ItemProblem::Missing(what)));
        }
        decode_signed(self.bytes, &mut self.pos)
            .map_err(|error| self.err(ItemProblem::Vlq { what, error }))
    }

    /// Reads every remaining VLQ as unsigned.
    fn rest_unsigned(&mut self, what: &'static str) -> Result<Vec<u64>, ScopesError> {
        let mut out = Vec::new();
        while self.has_more() {
            out.push(self.unsigned(what)?);
        }
        Ok(out)
    }

    /// Checks that the remaining bytes are well-formed VLQs and drops them.
    fn skip_rest(&mut self) -> Result<(), ScopesError> {
        while self.has_more() {
            // Digits are checked one by one rather than decoded, so that an extension's values are not held to
            // the 32-bit range of the items defined here.
            let b = self.bytes[self.pos];
            if !is_digit(b) {
                return Err(self.err(ItemProblem::NotADigit(char::from(b))));
            }
            let mut end = self.pos;
            loop {
                let Some(&d) = self.bytes.get(end) else {
                    return Err(self.err(ItemProblem::Unterminated));
                };
                if !is_digit(d) {
                    return Err(self.err(ItemProblem::NotADigit(char::from(d))));
                }
                end += 1;
                // Digits with the continuation bit (value ≥ 32) are 'g'–'z', '0'–'9', '+', '/'.
                let continues = matches!(d, b'g'..=b'z' | b'0'..=b'9' | b'+' | b'/');
                if !continues {
                    break;
                }
            }
            self.pos = end;
        }
        Ok(())
    }

    fn no_rest(&self, item: &'static str) -> Result<(), ScopesError> {
        if self.has_more() {
            return Err(self.err(ItemProblem::ExtraFields(item)));
        }
        Ok(())
    }
}

/// Applies a relative position to an accumulator: a non-zero line delta makes the column absolute.
fn accumulate(state: &mut (u32, u32), line: u64, column: u64) -> Option<(u32, u32)> {
    let line = u32::try_from(line).ok()?;
    let column = u32::try_from(column).ok()?;
    if line > 0 {
        *state = (state.0.checked_add(line)?, column);
    } else {
        state.1 = state.1.checked_add(column)?;
    }
    Some(*state)
}

fn relative_name(
    f: &Fields<'_>,
    state: &mut i64,
    delta: i64,
    names: &NameTable,
    what: &'static str,
) -> Result<String, ScopesError> {
    let index = *state + delta;
    match usize::try_from(index).ok().and_then(|i| names.get(i)) {
        Some(name) => {
            *state = index;
            Ok(name.to_string())
        }
        None => Err(f.err(ItemProblem::NameOutside {
            what,
            index,
            len: names.len(),
        })),
    }
}

/// A 1-based absolute binding index; 0 is "unavailable".
fn binding_name(
    f: &Fields<'_>,
    value: u64,
    names: &NameTable,
) -> Result<Option<String>, ScopesError> {
    if value == 0 {
        return Ok(None);
    }
    match usize::try_from(value - 1).ok().and_then(|i| names.get(i)) {
        Some(name) => Ok(Some(name.to_string())),
        None => Err(f.err(ItemProblem::BindingOutside {
            value,
            len: names.len(),
        })),
    }
}

struct OpenRange {
    range: GeneratedRange,
    has_bindings: bool,
    /// Sub-range bindings by variable index, applied at the range's end (after the `G` item, wherever it was).
    sub_ranges: Vec<(usize, Vec<Binding>)>,
}

/// Decodes the `scopes` field. `scopes` is the field's string value (already unescaped), `names` the map's names,
/// `sources` its source count.
pub fn decode_scopes(
    scopes: &str,
    names: &NameTable,
    sources: usize,
) -> Result<DecodedScopes, ScopesError> {
    let mut d = ScopesDecoder::new(names, sources);
    if scopes.is_empty() {
        return d.finish();
    }
    let mut offset = 0usize;
    for (item, text) in scopes.as_bytes().split(|&b| b == b',').enumerate() {
        let mut f = Fields {
            bytes: text,
            pos: 0,
            item,
            offset,
        };
        offset += text.len() + 1;

        let tag = if text.is_empty() {
            // An empty item: "no scope tree for this source", like `A`.
            TAG_EMPTY
        } else {
            f.unsigned("tag")?
        };

        if matches!(
            tag,
            TAG_EMPTY
                | TAG_ORIGINAL_SCOPE_START
                | TAG_ORIGINAL_SCOPE_END
                | TAG_ORIGINAL_SCOPE_VARIABLES
        ) && d.seen_range
        {
            return Err(f.err(ItemProblem::OutOfPlace(
                "original scope item after the first generated range",
            )));
        }

        match tag {
            TAG_EMPTY => {
                f.no_rest("empty")?;
                if !d.scope_stack.is_empty() {
                    return Err(f.err(ItemProblem::OutOfPlace(
                        "empty item inside an original scope",
                    )));
                }
                d.out.scopes.push(None);
            }
            TAG_ORIGINAL_SCOPE_START => d.original_scope_start(&mut f)?,
            TAG_ORIGINAL_SCOPE_VARIABLES => d.original_scope_variables(&mut f)?,
            TAG_ORIGINAL_SCOPE_END => d.original_scope_end(&mut f)?,
            TAG_GENERATED_RANGE_START => d.generated_range_start(&mut f)?,
            TAG_GENERATED_RANGE_BINDINGS => d.generated_range_bindings(&mut f)?,
            TAG_GENERATED_RANGE_SUBRANGE_BINDING => d.sub_range_binding(&mut f)?,
            TAG_GENERATED_RANGE_CALL_SITE => d.call_site(&mut f)?,
            TAG_GENERATED_RANGE_END => d.generated_range_end(&mut f)?,
            _ => {
                // Unknown tag: an extension's item, skipped.
                f.skip_rest()?;
            }
        }
    }
    d.finish()
}

/// The decoder's state between items: every value of the field is relative to the previous one of its kind.
struct ScopesDecoder<'n> {
    names: &'n NameTable,
    sources: usize,
    out: DecodedScopes,
    // Original scopes.
    scope_pos: (u32, u32),
    name_index: i64,
    kind_index: i64,
    variable_index: i64,
    scope_stack: Vec<OriginalScope>,
    /// Variable count of every original scope, in pre-order (the `definition` index space).
    flat_variables: Vec<usize>,
    /// Pre-order index of each open scope.
    flat_stack: Vec<usize>,
    // Generated ranges.
    seen_range: bool,
    range_pos: (u32, u32),
    definition_index: i64,
    range_stack: Vec<OpenRange>,
}

impl<'n> ScopesDecoder<'n> {
    fn new(names: &'n NameTable, sources: usize) -> Self {
        ScopesDecoder {
            names,
            sources,
            out: DecodedScopes::default(),
            scope_pos: (0, 0),
            name_index: 0,
            kind_index: 0,
            variable_index: 0,
            scope_stack: Vec::new(),
            flat_variables: Vec::new(),
            flat_stack: Vec::new(),
            seen_range: false,
            range_pos: (0, 0),
            definition_index: 0,
            range_stack: Vec::new(),
        }
    }

    /// An original scope starts: its position, name and kind, relative to the previous ones.
    fn original_scope_start(&mut self, f: &mut Fields<'_>) -> Result<(), ScopesError> {
        let flags = f.unsigned("flags")?;
        let line = f.unsigned("line")?;
        let column = f.unsigned("column")?;
        let start = accumulate(&mut self.scope_pos, line, column)
            .ok_or_else(|| f.err(ItemProblem::PositionTooLarge))?;
        let name = if flags & SCOPE_HAS_NAME != 0 {
            let delta = f.signed("name")?;
            Some(relative_name(
                f,
                &mut self.name_index,
                delta,
                self.names,
                "name",
            )?)
        } else {
            None
        };
        let kind = if flags & SCOPE_HAS_KIND != 0 {
            let delta = f.signed("kind")?;
            Some(relative_name(
                f,
                &mut self.kind_index,
                delta,
                self.names,
                "kind",
            )?)
        } else {
            None
        };
        f.skip_rest()?;
        self.flat_stack.push(self.flat_variables.len());
        self.flat_variables.push(0);
        self.scope_stack.push(OriginalScope {
            start,
            end: start,
            name,
            kind,
            is_stack_frame: flags & SCOPE_IS_STACK_FRAME != 0,
            variables: Vec::new(),
            children: Vec::new(),
        });
        Ok(())
    }

    /// The open original scope's variables.
    fn original_scope_variables(&mut self, f: &mut Fields<'_>) -> Result<(), ScopesError> {
        if self.scope_stack.is_empty() {
            return Err(f.err(ItemProblem::OutOfPlace(
                "variables item outside an original scope",
            )));
        }
        let mut variables = Vec::new();
        while f.has_more() {
            let delta = f.signed("variable")?;
            variables.push(relative_name(
                f,
                &mut self.variable_index,
                delta,
                self.names,
                "variable",
            )?);
        }
        let scope = self.scope_stack.last_mut().expect("checked non-empty");
        scope.variables.extend(variables);
        let flat = *self
            .flat_stack
            .last()
            .expect("parallel to self.scope_stack");
        self.flat_variables[flat] = scope.variables.len();
        Ok(())
    }

    /// The open original scope ends; a top-level one is the next source's tree.
    fn original_scope_end(&mut self, f: &mut Fields<'_>) -> Result<(), ScopesError> {
        let line = f.unsigned("line")?;
        let column = f.unsigned("column")?;
        f.no_rest("original scope end")?;
        let Some(mut scope) = self.scope_stack.pop() else {
            return Err(f.err(ItemProblem::OutOfPlace(
                "original scope end without a start",
            )));
        };
        self.flat_stack.pop();
        scope.end = accumulate(&mut self.scope_pos, line, column)
            .ok_or_else(|| f.err(ItemProblem::PositionTooLarge))?;
        match self.scope_stack.last_mut() {
            Some(parent) => parent.children.push(scope),
            None => {
                self.out.scopes.push(Some(scope));
                self.scope_pos = (0, 0);
            }
        }
        Ok(())
    }

    /// A generated range starts: its position, the original scope it is a definition of, its stack-frame type.
    fn generated_range_start(&mut self, f: &mut Fields<'_>) -> Result<(), ScopesError> {
        if !self.scope_stack.is_empty() {
            return Err(f.err(ItemProblem::OutOfPlace(
                "generated range inside an unterminated original scope",
            )));
        }
        self.seen_range = true;
        let flags = f.unsigned("flags")?;
        let line = if flags & RANGE_HAS_LINE != 0 {
            f.unsigned("line")?
        } else {
            0
        };
        let column = f.unsigned("column")?;
        let start = accumulate(&mut self.range_pos, line, column)
            .ok_or_else(|| f.err(ItemProblem::PositionTooLarge))?;
        let definition = if flags & RANGE_HAS_DEFINITION != 0 {
            let index = self.definition_index + f.signed("definition")?;
            match usize::try_from(index) {
                Ok(i) if i < self.flat_variables.len() => {
                    self.definition_index = index;
                    Some(i)
                }
                _ => {
                    return Err(f.err(ItemProblem::NotAScope {
                        index,
                        count: self.flat_variables.len(),
                    }))
                }
            }
        } else {
            None
        };
        f.skip_rest()?;
        let stack_frame_type = match (
            flags & RANGE_IS_STACK_FRAME != 0,
            flags & RANGE_IS_HIDDEN != 0,
        ) {
            (true, true) => StackFrameType::Hidden,
            (true, false) => StackFrameType::Original,
            (false, false) => StackFrameType::None,
            (false, true) => {
                return Err(f.err(ItemProblem::OutOfPlace(
                    "generated range is hidden but not a stack frame",
                )))
            }
        };
        self.range_stack.push(OpenRange {
            range: GeneratedRange {
                start,
                end: start,
                definition,
                stack_frame_type,
                bindings: Vec::new(),
                call_site: None,
                children: Vec::new(),
            },
            has_bindings: false,
            sub_ranges: Vec::new(),
        });
        Ok(())
    }

    /// The open range's bindings, one per variable of its definition.
    fn generated_range_bindings(&mut self, f: &mut Fields<'_>) -> Result<(), ScopesError> {
        let values = f.rest_unsigned("binding")?;
        let Some(open) = self.range_stack.last_mut() else {
            return Err(f.err(ItemProblem::OutOfPlace(
                "bindings item outside a generated range",
            )));
        };
        if open.has_bindings {
            return Err(f.err(ItemProblem::OutOfPlace(
                "second bindings item for one generated range",
            )));
        }
        let Some(definition) = open.range.definition else {
            return Err(f.err(ItemProblem::OutOfPlace(
                "bindings item for a generated range without a definition",
            )));
        };
        if values.len() != self.flat_variables[definition] {
            return Err(f.err(ItemProblem::BindingCount {
                got: values.len(),
                expected: self.flat_variables[definition],
            }));
        }
        let mut bindings = Vec::with_capacity(values.len());
        for v in values {
            bindings.push(vec![Binding {
                from: open.range.start,
                binding: binding_name(f, v, self.names)?,
            }]);
        }
        open.range.bindings = bindings;
        open.has_bindings = true;
        Ok(())
    }

    /// One variable's bindings over sub-ranges of the open range, applied when it ends.
    fn sub_range_binding(&mut self, f: &mut Fields<'_>) -> Result<(), ScopesError> {
        let variable = f.unsigned("variable index")?;
        let values = f.rest_unsigned("sub-range binding")?;
        let Some(open) = self.range_stack.last_mut() else {
            return Err(f.err(ItemProblem::OutOfPlace(
                "sub-range binding item outside a generated range",
            )));
        };
        if values.is_empty() || values.len() % 3 != 0 {
            return Err(f.err(ItemProblem::SubRangeValues(values.len())));
        }
        let variable = usize::try_from(variable).unwrap_or(usize::MAX);
        if open.sub_ranges.iter().any(|(v, _)| *v == variable) {
            return Err(f.err(ItemProblem::SecondSubRange(variable)));
        }
        let mut from = open.range.start;
        let mut bindings = Vec::with_capacity(values.len() / 3);
        for triple in values.chunks_exact(3) {
            let position = accumulate(&mut from, triple[0], triple[1])
                .ok_or_else(|| f.err(ItemProblem::PositionTooLarge))?;
            bindings.push(Binding {
                from: position,
                binding: binding_name(f, triple[2], self.names)?,
            });
        }
        open.sub_ranges.push((variable, bindings));
        Ok(())
    }

    /// The open range's call site (an inlined function's).
    fn call_site(&mut self, f: &mut Fields<'_>) -> Result<(), ScopesError> {
        let source = f.unsigned_u32("call site source")?;
        let line = f.unsigned_u32("call site line")?;
        let column = f.unsigned_u32("call site column")?;
        f.no_rest("call site")?;
        let Some(open) = self.range_stack.last_mut() else {
            return Err(f.err(ItemProblem::OutOfPlace(
                "call site item outside a generated range",
            )));
        };
        if open.range.call_site.is_some() {
            return Err(f.err(ItemProblem::OutOfPlace(
                "second call site for one generated range",
            )));
        }
        if source as usize >= self.sources {
            return Err(f.err(ItemProblem::CallSiteSource {
                index: source,
                len: self.sources,
            }));
        }
        open.range.call_site = Some((source, line, column));
        Ok(())
    }

    /// The open generated range ends.
    fn generated_range_end(&mut self, f: &mut Fields<'_>) -> Result<(), ScopesError> {
        let values = f.rest_unsigned("position")?;
        let (line, column) = match values[..] {
            [column] => (0, column),
            [line, column] => (line, column),
            _ => return Err(f.err(ItemProblem::RangeEndValues(values.len()))),
        };
        let Some(open) = self.range_stack.pop() else {
            return Err(f.err(ItemProblem::OutOfPlace(
                "generated range end without a start",
            )));
        };
        let mut range = open.range;
        range.end = accumulate(&mut self.range_pos, line, column)
            .ok_or_else(|| f.err(ItemProblem::PositionTooLarge))?;
        for (variable, sub) in open.sub_ranges {
            let Some(list) = range.bindings.get_mut(variable) else {
                return Err(f.err(ItemProblem::SubRangeVariable {
                    variable,
                    len: range.bindings.len(),
                }));
            };
            list.extend(sub);
        }
        match self.range_stack.last_mut() {
            Some(parent) => parent.range.children.push(range),
            None => self.out.ranges.push(range),
        }
        Ok(())
    }

    /// Every scope and range ended, and no more trees than sources.
    fn finish(mut self) -> Result<DecodedScopes, ScopesError> {
        if !self.scope_stack.is_empty() {
            return Err(ScopesError::ScopesNotEnded(self.scope_stack.len()));
        }
        if !self.range_stack.is_empty() {
            return Err(ScopesError::RangesNotEnded(self.range_stack.len()));
        }
        let sources = self.sources;
        if self.out.scopes.len() > sources {
            return Err(ScopesError::MoreTreesThanSources {
                trees: self.out.scopes.len(),
                sources,
            });
        }
        self.out.scopes.resize(sources, None);
        Ok(self.out)
    }
}

impl DecodedScopes {
    /// Pre-order flattening of all original scopes (the order `definition` indexes into).
    pub fn flattened(&self) -> Vec<&OriginalScope> {
        fn walk<'a>(scope: &'a OriginalScope, out: &mut Vec<&'a OriginalScope>) {
            out.push(scope);
            for child in &scope.children {
                walk(child, out);
            }
        }
        let mut out = Vec::new();
        for scope in self.scopes.iter().flatten() {
            walk(scope, &mut out);
        }
        out
    }

    /// The name of the function a generated position is in: the innermost generated range containing (line, column)
    /// (0-based, start inclusive, end exclusive) whose definition is an original scope with `is_stack_frame` and a
    /// name; `None` if there is none.
    pub fn function_name_at(&self, line: u32, column: u32) -> Option<&str> {
        fn search<'a>(
            ranges: &[GeneratedRange],
            flat: &[&'a OriginalScope],
            at: (u32, u32),
        ) -> Option<&'a str> {
            for range in ranges {
                if !(range.start <= at && at < range.end) {
                    continue;
                }
                if let Some(name) = search(&range.children, flat, at) {
                    return Some(name);
                }
                if let Some(scope) = range.definition.and_then(|d| flat.get(d)) {
                    if scope.is_stack_frame {
                        if let Some(name) = scope.name.as_deref() {
                            return Some(name);
                        }
                    }
                }
            }
            None
        }
        if self.ranges.is_empty() {
            return None;
        }
        let flat = self.flattened();
        search(&self.ranges, &flat, (line, column))
    }
}

#[cfg(test)]
mod tests;
