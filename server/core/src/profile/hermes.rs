//! The Hermes sampling profile (Chrome's trace-event JSON with `samples` and `stackFrames`, as Hermes'
//! `ChromeTraceSerializer` writes it): read in one pass into borrowed parts, so that writing it back with original
//! names copies every other byte as it was.
//!
//! `stackFrames` maps an id to `{name, category, parent?}` plus, for source runs, `line`, `column`, `funcLine`,
//! `funcColumn` (1-based, as strings) and, for bytecode runs, `funcVirtAddr` and `offset` (strings); `samples` are
//! `{cpu, name, ts, pid, tid, weight, sf}` with `ts` in µs and `sf` a `stackFrames` id.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{
    cut_parent_loops, durations, Frame, FrameKind, Profile, ProfileError, ProfileFormat, Rewrite,
    Rewrites, Strings,
};
use crate::GeneratedPosition;

/// A `stackFrames` entry, every field kept as written.
#[derive(Deserialize)]
struct RawFrame<'a> {
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    category: Option<&'a RawValue>,
    #[serde(borrow)]
    parent: Option<&'a RawValue>,
    #[serde(borrow)]
    line: Option<&'a RawValue>,
    #[serde(borrow)]
    column: Option<&'a RawValue>,
    #[serde(borrow, rename = "funcLine")]
    func_line: Option<&'a RawValue>,
    #[serde(borrow, rename = "funcColumn")]
    func_column: Option<&'a RawValue>,
    #[serde(borrow, rename = "funcVirtAddr")]
    func_virt_addr: Option<&'a RawValue>,
    #[serde(borrow)]
    offset: Option<&'a RawValue>,
    #[serde(borrow)]
    url: Option<&'a RawValue>,
}

/// A sample: only `ts` and `sf` are read; the rest stays as written.
#[derive(Deserialize)]
struct RawSample<'a> {
    #[serde(borrow)]
    ts: Option<&'a RawValue>,
    #[serde(borrow)]
    sf: Option<&'a RawValue>,
    #[serde(borrow)]
    weight: Option<&'a RawValue>,
}

enum TopValue<'a> {
    Frames(Vec<(Cow<'a, str>, RawFrame<'a>)>),
    Samples(&'a RawValue),
    Other(&'a RawValue),
}

/// The top-level object, in order.
struct Top<'a>(Vec<(Cow<'a, str>, TopValue<'a>)>);

struct OrderedFrames<'a>(Vec<(Cow<'a, str>, RawFrame<'a>)>);

impl<'de> Deserialize<'de> for OrderedFrames<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedFrames<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of stack frames")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    out.push((key, map.next_value()?));
                }
                Ok(OrderedFrames(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Top<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a Hermes profile object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let value = match &*key {
                        "stackFrames" => TopValue::Frames(map.next_value::<OrderedFrames>()?.0),
                        // Read into samples by `profile`, on a thread of its own while the frames are read.
                        "samples" => TopValue::Samples(map.next_value()?),
                        _ => TopValue::Other(map.next_value()?),
                    };
                    out.push((key, value));
                }
                Ok(Top(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A number Hermes writes as a string (`"12"`) or a plain number.
/// A value as written, without the quotes Hermes puts around numbers.
fn unquoted(raw: &RawValue) -> &str {
    let t = raw.get().trim();
    t.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t)
}

/// A number Hermes writes as a string (`"12"`) or a plain number.
fn number(raw: Option<&RawValue>) -> Option<f64> {
    let t = unquoted(raw?);
    if let Some(n) = digits(t) {
        return Some(n as f64);
    }
    t.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// Plain decimal digits (what Hermes writes for lines, columns, offsets and times), read without float parsing.
fn digits(t: &str) -> Option<u64> {
    (!t.is_empty() && t.len() <= 18 && t.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.bytes().fold(0u64, |n, b| n * 10 + u64::from(b - b'0')))
}

fn whole(raw: Option<&RawValue>) -> Option<u32> {
    let raw = raw?;
    if let Some(n) = digits(unquoted(raw)) {
        return u32::try_from(n).ok();
    }
    number(Some(raw))
        .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n <= f64::from(u32::MAX))
        .map(|n| n as u32)
}

/// A JSON string's text: borrowed when it has no escapes (Hermes' names never do), else unescaped.
fn text<'a>(raw: Option<&'a RawValue>) -> Option<Cow<'a, str>> {
    let r = raw?.get();
    if r.len() >= 2 && r.starts_with('"') && r.ends_with('"') && !r.contains('\\') {
        return Some(Cow::Borrowed(&r[1..r.len() - 1]));
    }
    serde_json::from_str::<Cow<'a, str>>(r).ok()
}

/// Frame ids → indexes. Hermes numbers its frames from 1: ids are looked up in a table by number (a hash map of
/// 160K numbers was 10.8 % of a long recording's run in `perf`); sparse numbers in a map; any other id as text.
enum Ids<'a> {
    Dense(Vec<u32>),
    Numbers(FxHashMap<u64, usize>),
    Text(FxHashMap<&'a str, usize>),
}

impl<'a> Ids<'a> {
    fn of(ids: impl Iterator<Item = &'a str> + Clone) -> Ids<'a> {
        let numbers: Option<Vec<u64>> = ids.clone().map(plain_number).collect();
        let Some(numbers) = numbers else {
            return Ids::Text(ids.enumerate().map(|(i, k)| (k, i)).collect());
        };
        let max = numbers.iter().copied().max().unwrap_or(0);
        if max < 4 * numbers.len() as u64 + 1024 {
            let mut table = vec![u32::MAX; max as usize + 1];
            for (i, n) in numbers.iter().enumerate() {
                table[*n as usize] = i as u32;
            }
            return Ids::Dense(table);
        }
        Ids::Numbers(
            numbers
                .into_iter()
                .enumerate()
                .map(|(i, n)| (n, i))
                .collect(),
        )
    }

    fn get(&self, id: &str) -> Option<usize> {
        match self {
            Ids::Dense(t) => {
                let i = *t.get(usize::try_from(plain_number(id)?).ok()?)?;
                (i != u32::MAX).then_some(i as usize)
            }
            Ids::Numbers(n) => n.get(&plain_number(id)?).copied(),
            Ids::Text(t) => t.get(id).copied(),
        }
    }
}

/// An id written as a number's own digits (`01` and `+1` are not the frame `1`).
fn plain_number(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    let plain = !b.is_empty() && b.iter().all(u8::is_ascii_digit) && (b.len() == 1 || b[0] != b'0');
    if plain {
        id.parse().ok()
    } else {
        None
    }
}

/// A Hermes profile, parsed and kept for writing back.
pub struct HermesDoc<'a> {
    top: Top<'a>,
}

impl<'a> HermesDoc<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ProfileError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ProfileError::new(format!("not UTF-8 at byte {}", e.valid_up_to())))?;
        let top: Top = serde_json::from_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| ProfileError::json("Hermes profile", e))?;
        if !top.0.iter().any(|(_, v)| matches!(v, TopValue::Frames(_))) {
            return Err(ProfileError::new(
                "a Hermes profile needs `stackFrames`; this one has none",
            ));
        }
        Ok(HermesDoc { top })
    }

    fn frames(&self) -> &[(Cow<'a, str>, RawFrame<'a>)] {
        self.top
            .0
            .iter()
            .find_map(|(_, v)| match v {
                TopValue::Frames(f) => Some(f.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    fn samples(&self) -> Option<&'a RawValue> {
        self.top.0.iter().find_map(|(_, v)| match v {
            TopValue::Samples(raw) => Some(*raw),
            _ => None,
        })
    }

    /// The profile model: frames in `stackFrames` order, time per frame from the samples.
    pub fn profile(&self) -> Profile {
        // The samples are read on a second thread while the frames are (a long recording: 188K samples beside
        // 160K frames, each about half the file): 203–235 → 192–218 ms, alternating builds, `perf stat -r 7`.
        let samples_raw = self.samples();
        let (mut warnings, frames, by_id, samples) = std::thread::scope(|scope| {
            let samples = scope.spawn(move || match samples_raw {
                Some(raw) => {
                    serde_json::from_str::<Vec<RawSample>>(raw.get()).map_err(|e| e.to_string())
                }
                None => Ok(Vec::new()),
            });
            let raw = self.frames();
            let mut warnings = Vec::new();
            let mut strings = Strings::default();
            let by_id = Ids::of(raw.iter().map(|(k, _)| k.as_ref()));
            // Frames repeat a few thousand names: each is read once.
            let mut names: FxHashMap<&str, Named> = FxHashMap::default();
            let mut frames: Vec<Frame> = raw
                .iter()
                .map(|(id, f)| {
                    let raw_name = f.name.map_or("", |n| n.get());
                    let named = match names.get(raw_name) {
                        Some(n) => n.clone(),
                        None => {
                            let n = Named::of(&text(f.name).unwrap_or_default(), &mut strings);
                            names.insert(raw_name, n.clone());
                            n
                        }
                    };
                    let is_js = f.category.is_some_and(|c| c.get() == "\"JavaScript\"")
                        || (f.category.is_some_and(|c| c.get().contains('\\'))
                            && text(f.category).as_deref() == Some("JavaScript"));
                    let parent = f.parent.and_then(|p| {
                        let t = unquoted(p);
                        let found = by_id.get(t);
                        if found.is_none() {
                            warnings.push(format!(
                                "frame {id} names parent {t}, which is not in stackFrames"
                            ));
                        }
                        found
                    });
                    read_frame(id, named, is_js, parent, f, &mut strings)
                })
                .collect();
            cut_parent_loops(&mut frames, &mut warnings);
            let samples = samples.join().unwrap_or_else(|_| Ok(Vec::new()));
            (warnings, frames, by_id, samples)
        });
        let samples = samples.unwrap_or_else(|e| {
            warnings.push(format!("samples: {e}; left out"));
            Vec::new()
        });
        let mut stamps = Vec::new();
        let mut leaves = Vec::new();
        let mut unknown = 0u64;
        for s in &samples {
            let leaf = s.sf.and_then(|sf| by_id.get(unquoted(sf)));
            match (leaf, number(s.ts)) {
                (Some(leaf), Some(ts)) => {
                    stamps.push(ts);
                    leaves.push((leaf, whole(s.weight).unwrap_or(1).max(1)));
                }
                _ => unknown += 1,
            }
        }
        if unknown > 0 {
            warnings.push(format!(
                "{unknown} samples name no frame of stackFrames (or have no time); left out"
            ));
        }
        // Samples come in time order from Hermes; a file that is not keeps what can be said (no negative times).
        let lasts = durations(&stamps, None);
        let mut self_us = vec![0.0; frames.len()];
        let mut self_samples = vec![0u64; frames.len()];
        for (&(leaf, weight), d) in leaves.iter().zip(&lasts) {
            self_us[leaf] += d;
            self_samples[leaf] += u64::from(weight);
        }
        Profile {
            format: ProfileFormat::Hermes,
            total_us: self_us.iter().sum(),
            samples: leaves.len() as u64,
            timeline: leaves
                .iter()
                .map(|l| l.0)
                .zip(stamps.iter().copied())
                .collect(),
            start_us: stamps.first().copied(),
            end_us: stamps.last().zip(lasts.last()).map(|(t, d)| t + d),
            frames,
            self_us,
            self_samples,
            warnings,
        }
    }

    /// Writes the profile back with each frame's `name` as metro-symbolicate writes it, `function(source:line:column)`
    /// (line 1-based, column 0-based), so its readers keep working; every other byte as it was. `rewrites` is by
    /// frame, in `profile().frames` order.
    pub fn write(&self, rewrites: &Rewrites, out: &mut impl Write) -> io::Result<()> {
        out.write_all(b"{")?;
        for (k, (key, value)) in self.top.0.iter().enumerate() {
            if k > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, key.as_ref())?;
            out.write_all(b":")?;
            match value {
                TopValue::Other(raw) | TopValue::Samples(raw) => {
                    out.write_all(raw.get().as_bytes())?
                }
                TopValue::Frames(frames) => {
                    // A rewrite's JSON name once per rewrite, not per frame (frames repeat places).
                    let mut rendered: FxHashMap<u32, String> = FxHashMap::default();
                    out.write_all(b"{")?;
                    for (i, (id, f)) in frames.iter().enumerate() {
                        if i > 0 {
                            out.write_all(b",")?;
                        }
                        write_key(out, id)?;
                        out.write_all(b":{")?;
                        let mut first = true;
                        for (k, v) in [
                            ("line", f.line),
                            ("column", f.column),
                            ("funcLine", f.func_line),
                            ("funcColumn", f.func_column),
                            ("funcVirtAddr", f.func_virt_addr),
                            ("offset", f.offset),
                            ("url", f.url),
                        ] {
                            if let Some(v) = v {
                                field(out, &mut first, k, v.get())?;
                            }
                        }
                        match rewrites.index_of(i).zip(rewrites.of(i)) {
                            Some((k, r)) if r.function.is_some() => {
                                let name = rendered.entry(k).or_insert_with(|| name_json(r, ""));
                                field(out, &mut first, "name", name)?;
                            }
                            Some((_, r)) => {
                                // No original name: the profile's own function name, at the original place.
                                let own = text(f.name).unwrap_or_default();
                                field(out, &mut first, "name", &name_json(r, function_part(&own)))?;
                            }
                            None => {
                                if let Some(v) = f.name {
                                    field(out, &mut first, "name", v.get())?;
                                }
                            }
                        }
                        for (k, v) in [("category", f.category), ("parent", f.parent)] {
                            if let Some(v) = v {
                                field(out, &mut first, k, v.get())?;
                            }
                        }
                        out.write_all(b"}")?;
                    }
                    out.write_all(b"}")?;
                }
            }
        }
        out.write_all(b"}")
    }
}

/// An object key: Hermes' ids are digits, written as they are; anything else through serde's escaping.
fn write_key(out: &mut impl Write, key: &str) -> io::Result<()> {
    if key.bytes().all(|b| b.is_ascii_alphanumeric()) {
        out.write_all(b"\"")?;
        out.write_all(key.as_bytes())?;
        return out.write_all(b"\"");
    }
    serde_json::to_writer(&mut *out, key).map_err(io::Error::from)
}

/// One `"key":value` of an object being written, after a comma unless it is the first.
fn field(out: &mut impl Write, first: &mut bool, key: &str, value: &str) -> io::Result<()> {
    if !std::mem::take(first) {
        out.write_all(b",")?;
    }
    out.write_all(b"\"")?;
    out.write_all(key.as_bytes())?;
    out.write_all(b"\":")?;
    out.write_all(value.as_bytes())
}

/// A rewritten frame name as metro-symbolicate writes it, `function(source:line:column)` (line 1-based, column
/// 0-based), as a JSON string; `own` is the name when the rewrite has none.
fn name_json(r: &Rewrite, own: &str) -> String {
    let name = format!(
        "{}({}:{}:{})",
        r.function.as_deref().unwrap_or(own),
        r.source,
        r.line + 1,
        r.column
    );
    serde_json::to_string(&name).unwrap_or_default()
}

/// The function's name in a Hermes frame name: `leaf(t.js:1:1)` → `leaf`; `global` → `global`.
fn function_part(name: &str) -> &str {
    match name
        .strip_suffix(')')
        .and_then(|n| n.rfind('(').map(|i| &n[..i]))
    {
        Some(f) => f,
        None => name,
    }
}

/// The file of a Hermes source frame's name: `leaf(dist/app.js:1:1)` → `dist/app.js`.
fn file_part(name: &str) -> Option<&str> {
    let inner = name.strip_suffix(')')?;
    let open = inner.rfind('(')?;
    let loc = &inner[open + 1..];
    let (rest, column) = loc.rsplit_once(':')?;
    let (file, line) = rest.rsplit_once(':')?;
    (column.parse::<u32>().is_ok() && line.parse::<u32>().is_ok() && !file.is_empty())
        .then_some(file)
}

/// What a frame's name says, shared by every frame with that name: the name, its function part, its file part.
#[derive(Clone)]
struct Named {
    name: Arc<str>,
    function: Option<Arc<str>>,
    file: Option<Arc<str>>,
}

impl Named {
    fn of(name: &str, strings: &mut Strings) -> Named {
        let function = function_part(name);
        Named {
            name: strings.get(name),
            function: (!function.is_empty() && function != "anonymous")
                .then(|| strings.get(function)),
            file: file_part(name).map(|f| strings.get(f)),
        }
    }
}

fn read_frame(
    id: &str,
    named: Named,
    is_js: bool,
    parent: Option<usize>,
    f: &RawFrame,
    strings: &mut Strings,
) -> Frame {
    // 1-based line and column (module docs), to 0-based.
    let one_based = |l: Option<&RawValue>, c: Option<&RawValue>| {
        let (l, c) = (whole(l)?, whole(c)?);
        Some(GeneratedPosition {
            line: l.checked_sub(1)?,
            column: c.checked_sub(1)?,
        })
    };
    let (position, function_start, is_bytecode) = if f.func_virt_addr.is_some() {
        // Line 1, column `funcVirtAddr + offset` (module docs).
        let base = whole(f.func_virt_addr);
        let at = |offset: u32| {
            let column = base?.checked_add(offset)?;
            Some(GeneratedPosition { line: 0, column })
        };
        (whole(f.offset).and_then(at), at(0), true)
    } else {
        (
            one_based(f.line, f.column),
            one_based(f.func_line, f.func_column),
            false,
        )
    };
    let url = match text(f.url) {
        Some(u) => Some(strings.get(&u)),
        None if !is_bytecode => named.file,
        None => None,
    };
    Frame {
        id: id.into(),
        parent,
        function: named.function.filter(|_| is_js),
        name: named.name,
        url,
        kind: if is_js {
            FrameKind::JavaScript
        } else {
            FrameKind::Engine
        },
        position: if is_js { position } else { None },
        function_start: if is_js { function_start } else { None },
        bytecode: is_bytecode && is_js,
    }
}

/// Reads a Hermes sampling profile.
pub fn read(bytes: &[u8]) -> Result<Profile, ProfileError> {
    Ok(HermesDoc::parse(bytes)?.profile())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile `hermes -sample-profiling` wrote for `t.js` (fixtures/profiles README: `leaf`'s call of
    /// `Math.sqrt(` is at 1-based column 75 of line 1; `mid(` in the global code at line 4, column 45).
    const SOURCE_RUN: &str = r#"{"traceEvents":[{"name":"process_name","ph":"M","cat":"__metadata","pid":1,"ts":"10","tid":"-1","args":{"name":"hermes"}}],"samples":[{"cpu":"-1","name":"","ts":"100","pid":1,"tid":"1","weight":"1","sf":4},{"cpu":"-1","name":"","ts":"110","pid":1,"tid":"1","weight":"1","sf":5},{"cpu":"-1","name":"","ts":"130","pid":1,"tid":"1","weight":"1","sf":6}],"stackFrames":{"1":{"name":"[root]","category":"root"},"2":{"line":"4","column":"45","funcLine":"1","funcColumn":"1","name":"global(t.js:4:45)","category":"JavaScript","parent":1},"3":{"line":"2","column":"71","funcLine":"2","funcColumn":"1","name":"mid(t.js:2:71)","category":"JavaScript","parent":2},"4":{"line":"1","column":"1","funcLine":"1","funcColumn":"1","name":"leaf(t.js:1:1)","category":"JavaScript","parent":3},"5":{"line":"1","column":"75","funcLine":"1","funcColumn":"1","name":"leaf(t.js:1:75)","category":"JavaScript","parent":3},"6":{"name":"[Native] runContextFunc1Arg","category":"Native","parent":5}}}"#;

    #[test]
    fn source_frames_are_one_based() {
        let p = read(SOURCE_RUN.as_bytes()).unwrap();
        assert_eq!(p.format, ProfileFormat::Hermes);
        assert_eq!(p.frames.len(), 6);
        let leaf = &p.frames[4];
        assert_eq!(&*leaf.id, "5");
        assert_eq!(leaf.function.as_deref(), Some("leaf"));
        assert_eq!(leaf.url.as_deref(), Some("t.js"));
        assert_eq!(
            leaf.position,
            Some(GeneratedPosition {
                line: 0,
                column: 74
            })
        );
        assert_eq!(
            leaf.function_start,
            Some(GeneratedPosition { line: 0, column: 0 })
        );
        assert_eq!(leaf.parent, Some(2));
        assert_eq!(p.frames[5].kind, FrameKind::Engine);
        assert_eq!(p.frames[5].position, None);
        // 100 → 110 → 130, the last for the mean interval (15).
        assert_eq!(
            (p.self_us[3], p.self_us[4], p.self_us[5]),
            (10.0, 20.0, 15.0)
        );
        assert_eq!(p.total_us, 45.0);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn bytecode_frames_are_offsets_on_line_one() {
        let p = read(br#"{"traceEvents":[],"samples":[{"ts":"1","sf":2}],"stackFrames":{"1":{"name":"[root]","category":"root"},"2":{"funcVirtAddr":"149","offset":"26","name":"leaf","category":"JavaScript","parent":1}}}"#).unwrap();
        let f = &p.frames[1];
        assert!(f.bytecode);
        assert_eq!(f.url, None);
        assert_eq!(
            f.position,
            Some(GeneratedPosition {
                line: 0,
                column: 175
            })
        );
        assert_eq!(
            f.function_start,
            Some(GeneratedPosition {
                line: 0,
                column: 149
            })
        );
    }

    #[test]
    fn written_back_byte_for_byte_but_the_names() {
        let doc = HermesDoc::parse(SOURCE_RUN.as_bytes()).unwrap();
        let mut same = Vec::new();
        doc.write(&Rewrites::per_frame(Vec::new()), &mut same)
            .unwrap();
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_slice(&same).unwrap(),
            serde_json::from_str(SOURCE_RUN).unwrap(),
        );
        assert_eq!(a, b);
        let mut rewrites = vec![None; 6];
        rewrites[4] = Some(Rewrite {
            function: Some("squareRoots".into()),
            source: "src/math.js".into(),
            line: 9,
            column: 4,
        });
        let mut out = Vec::new();
        doc.write(&Rewrites::per_frame(rewrites), &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            v["stackFrames"]["5"]["name"],
            "squareRoots(src/math.js:10:4)"
        );
        assert_eq!(v["stackFrames"]["5"]["column"], "75");
        assert_eq!(v["stackFrames"]["4"], b["stackFrames"]["4"]);
        assert_eq!(v["samples"], b["samples"]);
    }

    #[test]
    fn broken_input_is_an_error_or_an_answer_for_what_is_valid() {
        assert!(read(b"{\"stackFrames\":{\"1\":")
            .unwrap_err()
            .message
            .contains("line 1"));
        let p = read(br#"{"samples":[{"ts":"1","sf":9},{"ts":"2","sf":1}],"stackFrames":{"1":{"name":"a","category":"JavaScript","parent":2},"2":{"name":"b","category":"JavaScript","parent":1}}}"#).unwrap();
        assert_eq!(p.samples, 1);
        assert_eq!(p.warnings.len(), 2, "{:?}", p.warnings);
    }
}
