//! The Hermes sampling profile (Chrome's trace-event JSON with `samples` and `stackFrames`, as Hermes'
//! `ChromeTraceSerializer` writes it), read in one strict pass without serde (`json_reader`) and written back as
//! the input's own bytes with only the frames' `name` values replaced.
//!
//! `stackFrames` maps an id to `{name, category, parent?}` plus, for source runs, `line`, `column`, `funcLine`,
//! `funcColumn` (1-based, as strings) and, for bytecode runs, `funcVirtAddr` and `offset` (strings); `samples` are
//! `{cpu, name, ts, pid, tid, weight, sf}` with `ts` in µs and `sf` a `stackFrames` id.
//!
//! Hermes writes `traceEvents`, then `samples`, then `stackFrames`, each about half of a long recording. The frames
//! are read on a second thread from where `"stackFrames"` first appears while the first thread reads the document
//! from its start; when that thread reaches the `stackFrames` member at that very place it takes the second
//! thread's result, else (the words were inside a string, or it is not a member of the top level) it reads the
//! member itself and the guess is dropped. What a frame needs for the model is kept (36 bytes, `Frame`, its code
//! shared) and, for writing back, where its name starts (8 bytes), nothing else: the first version kept every
//! field of every frame as borrowed JSON, 46 MB of heap for a 33 MB recording. Both threads, and the writer, tell
//! of the bytes they have passed (`Passed`); once passed, the input is read again only for the names written back
//! (and, while frames are read, the first frame of each code, to compare with).

use std::borrow::Cow;
use std::io::{self, Write};

use rustc_hash::FxHashMap;

use super::{
    cut_parent_loops, durations, Behind, Code, Codes, Frame, FrameIds, FrameKind, Passed, Profile,
    ProfileError, ProfileFormat, Rewrite, Rewrites, Strings,
};
use crate::json::reader::Reader;
use crate::GeneratedPosition;

/// A `stackFrames` entry's fields, each as written (JSON text), `null` as absent.
#[derive(Default, Clone, Copy)]
struct RawFrame<'a> {
    name: Option<&'a str>,
    category: Option<&'a str>,
    parent: Option<&'a str>,
    line: Option<&'a str>,
    column: Option<&'a str>,
    func_line: Option<&'a str>,
    func_column: Option<&'a str>,
    func_virt_addr: Option<&'a str>,
    offset: Option<&'a str>,
    url: Option<&'a str>,
}

impl<'a> RawFrame<'a> {
    /// The field `key` names, if it is one of a frame's.
    fn slot(&mut self, key: &[u8]) -> Option<(usize, &mut Option<&'a str>)> {
        Some(match key {
            b"name" => (0, &mut self.name),
            b"category" => (1, &mut self.category),
            b"parent" => (2, &mut self.parent),
            b"line" => (3, &mut self.line),
            b"column" => (4, &mut self.column),
            b"funcLine" => (5, &mut self.func_line),
            b"funcColumn" => (6, &mut self.func_column),
            b"funcVirtAddr" => (7, &mut self.func_virt_addr),
            b"offset" => (8, &mut self.offset),
            b"url" => (9, &mut self.url),
            _ => return None,
        })
    }
}

/// A text compared without a call to `memcmp` for short ones: a long recording's frames are mostly named with two
/// letters, and the call for each of them, in the lookup of their code, was 9 % of the run in `perf`.
#[derive(Clone, Copy, Hash)]
struct Short<'a>(&'a str);

impl PartialEq for Short<'_> {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        a.len() == b.len()
            && if a.len() <= 16 {
                a.iter().zip(b).all(|(x, y)| x == y)
            } else {
                a == b
            }
    }
}

impl Eq for Short<'_> {}

/// A sample as the model needs it, in 16 bytes (188K of them are held while the frames are read): the leaf's id
/// (`IdRefs`), the time stamp (NaN: none), the weight.
struct RawSample {
    sf: u32,
    ts: f64,
    weight: u32,
}

/// Ids that samples (`sf`) and frames (`parent`) name, kept as numbers to look up once every frame is known, without
/// reading the input again (its pages may have left the process, `Passed`; resolving parents through borrowed
/// texts brought 15 MB of it back): a plain number below 2³¹ as itself, any other id as `TEXT_ID | k`, `k` its
/// index among the texts kept aside, none as `NO_ID`.
#[derive(Default)]
struct IdRefs {
    texts: Vec<Box<str>>,
}

const TEXT_ID: u32 = 1 << 31;
const NO_ID: u32 = u32::MAX;

impl IdRefs {
    fn of(&mut self, id: Option<&str>) -> u32 {
        let Some(id) = id else { return NO_ID };
        match plain_number(id) {
            Some(n) if n < u64::from(TEXT_ID) => n as u32,
            _ if self.texts.len() < (TEXT_ID - 1) as usize => {
                self.texts.push(id.into());
                TEXT_ID | (self.texts.len() - 1) as u32
            }
            _ => NO_ID,
        }
    }

    fn resolve(&self, r: u32, by_id: &Ids) -> Option<u32> {
        match r {
            NO_ID => None,
            r if r & TEXT_ID != 0 => by_id.get(&self.texts[(r & !TEXT_ID) as usize]),
            r => by_id.get_number(u64::from(r)),
        }
    }

    /// The id as written, for warnings.
    fn text(&self, r: u32) -> String {
        match r {
            NO_ID => String::new(),
            r if r & TEXT_ID != 0 => self.texts[(r & !TEXT_ID) as usize].to_string(),
            r => r.to_string(),
        }
    }
}

/// Where a frame's `name` value starts (its end is found again when it is rewritten); a frame without one has
/// `INSERT_NAME` set, at the byte just inside its `{`.
#[derive(Clone, Copy)]
struct NameAt(usize);

const INSERT_NAME: usize = 1 << (usize::BITS - 1);

/// Why the reader stopped: where, and what it refused when the JSON itself is valid.
struct Refusal {
    at: usize,
    why: Option<String>,
}

/// What the frames' thread reads.
struct FramesRead {
    /// Where the `stackFrames` object ends.
    end: usize,
    frames: Vec<Frame>,
    ids: FrameIds,
    codes: Vec<Code>,
    names: Vec<NameAt>,
    by_id: Ids,
    warnings: Vec<String>,
}

/// A value as written (the reader's text of it: no white space around), without the quotes Hermes puts around
/// numbers.
fn unquoted(raw: &str) -> &str {
    match raw.as_bytes() {
        [b'"', .., b'"'] if raw.len() >= 2 => &raw[1..raw.len() - 1],
        _ => raw,
    }
}

/// A number Hermes writes as a string (`"12"`) or a plain number.
fn number(raw: Option<&str>) -> Option<f64> {
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

fn whole(raw: Option<&str>) -> Option<u32> {
    let raw = raw?;
    if let Some(n) = digits(unquoted(raw)) {
        return u32::try_from(n).ok();
    }
    number(Some(raw))
        .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n <= f64::from(u32::MAX))
        .map(|n| n as u32)
}

/// A JSON string's text: borrowed when it has no escapes (Hermes' names never do), else unescaped.
fn text(raw: Option<&str>) -> Option<Cow<'_, str>> {
    let r = raw?;
    if r.len() >= 2 && r.starts_with('"') && r.ends_with('"') && !r.contains('\\') {
        return Some(Cow::Borrowed(&r[1..r.len() - 1]));
    }
    serde_json::from_str::<String>(r).ok().map(Cow::Owned)
}

/// A key as its text: borrowed unless it has escapes (the reader has checked them).
fn key_text(key: &[u8], escapes: bool) -> Cow<'_, [u8]> {
    if !escapes {
        return Cow::Borrowed(key);
    }
    let quoted = [b"\"", key, b"\""].concat();
    match serde_json::from_slice::<String>(&quoted) {
        Ok(k) => Cow::Owned(k.into_bytes()),
        Err(_) => Cow::Borrowed(key),
    }
}

/// Frame ids → indexes. Hermes numbers its frames from 1: ids are looked up in a table by number (a hash map of
/// 160K numbers was 10.8 % of a long recording's run in `perf`); sparse numbers in a map; any other id as text.
enum Ids {
    Dense(Vec<u32>),
    Numbers(FxHashMap<u64, u32>),
    Text(FxHashMap<Box<str>, u32>),
}

impl Ids {
    fn of(ids: &FrameIds) -> Ids {
        let numbers: Option<Vec<u64>> = ids.iter().map(plain_number).collect();
        let Some(numbers) = numbers else {
            return Ids::Text(
                ids.iter()
                    .enumerate()
                    .map(|(i, k)| (k.into(), i as u32))
                    .collect(),
            );
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
                .map(|(i, n)| (n, i as u32))
                .collect(),
        )
    }

    fn get_number(&self, n: u64) -> Option<u32> {
        match self {
            Ids::Dense(t) => {
                let i = *t.get(usize::try_from(n).ok()?)?;
                (i != u32::MAX).then_some(i)
            }
            Ids::Numbers(m) => m.get(&n).copied(),
            Ids::Text(t) => t.get(n.to_string().as_str()).copied(),
        }
    }

    fn get(&self, id: &str) -> Option<u32> {
        match self {
            Ids::Dense(t) => {
                let i = *t.get(usize::try_from(plain_number(id)?).ok()?)?;
                (i != u32::MAX).then_some(i)
            }
            Ids::Numbers(n) => n.get(&plain_number(id)?).copied(),
            Ids::Text(t) => t.get(id).copied(),
        }
    }
}

/// An id written as a number's own digits (`01` and `+1` are not the frame `1`).
fn plain_number(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    if b.len() > 1 && b[0] == b'0' {
        return None;
    }
    digits(id).or_else(|| id.parse().ok().filter(|_| b.iter().all(u8::is_ascii_digit)))
}

/// Where the `stackFrames` value probably starts: after the first `"stackFrames"` followed by a colon.
fn guess_frames(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let key = memchr::memmem::find(b, b"\"stackFrames\"")?;
    let mut r = Reader::new(text);
    r.i = key + b"\"stackFrames\"".len();
    r.expect(b':')?;
    r.ws();
    Some(r.i)
}

/// Reads the `stackFrames` object from `at` (its `{`): its frames, ids, codes and names' places, parents linked.
fn read_frames(text: &str, at: usize, passed: Passed) -> Result<FramesRead, Refusal> {
    let mut behind = Behind::new(passed, at);
    let mut r = Reader::new(text);
    r.i = at;
    let mut why = None;
    let mut ids = FrameIds::default();
    let mut frames = Vec::new();
    let mut names = Vec::new();
    let mut parents: Vec<u32> = Vec::new();
    let mut parent_ids = IdRefs::default();
    let mut strings = Strings::default();
    let mut codes = Codes::default();
    // Frames repeat a few thousand codes: each is made once per distinct way of writing it. The category is
    // keyed as what it decides (JavaScript or not): comparing the raw texts of three fields per frame was 9 % of a
    // long recording's run, in `memcmp`.
    let mut code_of: FxHashMap<(Short, Short, bool, bool), u32> = FxHashMap::default();
    if r.peek() != Some(b'{') {
        return Err(Refusal {
            at,
            why: Some("`stackFrames` is not an object".into()),
        });
    }
    let read = r.members_any(2, |r, id, escapes, depth| {
        if r.peek()? != b'{' {
            why = Some(format!(
                "stack frame {} is not an object",
                String::from_utf8_lossy(id)
            ));
            return None;
        }
        let open = r.i;
        let mut f = RawFrame::default();
        let mut name_at = NameAt(INSERT_NAME | (open + 1));
        let mut seen = 0u16;
        let mut repeated = None;
        r.members_any(depth + 1, |r, key, escapes, depth| {
            let key = key_text(key, escapes);
            let start = r.i;
            r.skip_value(depth)?;
            let Some((k, slot)) = f.slot(&key) else {
                return Some(());
            };
            // serde's derived structs refuse a repeated field; so does this reader.
            if seen & (1 << k) != 0 {
                repeated = Some(String::from_utf8_lossy(&key).into_owned());
                return None;
            }
            seen |= 1 << k;
            let raw = r.text(start);
            *slot = (raw != "null").then_some(raw);
            if k == 0 {
                name_at = NameAt(start);
            }
            Some(())
        })
        .or_else(|| {
            if let Some(key) = repeated.take() {
                why = Some(format!(
                    "stack frame {} has `{key}` twice",
                    String::from_utf8_lossy(id)
                ));
            }
            None
        })?;
        ids.push(std::str::from_utf8(&key_text(id, escapes)).unwrap_or_default());
        let key = (
            Short(f.name.unwrap_or("")),
            Short(f.url.unwrap_or("")),
            is_javascript(f.category),
            f.func_virt_addr.is_some(),
        );
        let code = match code_of.get(&key) {
            Some(&c) => c,
            None => {
                let c = codes.get(code_of_frame(&f, &mut strings));
                code_of.insert(key, c);
                c
            }
        };
        frames.push(frame_of(&f, code));
        parents.push(parent_ids.of(f.parent.map(unquoted)));
        names.push(name_at);
        behind.at(r.i);
        Some(())
    });
    if read.is_none() {
        return Err(Refusal { at: r.i, why });
    }
    behind.end(r.i);
    let by_id = Ids::of(&ids);
    let mut warnings = Vec::new();
    for (i, &p) in parents.iter().enumerate() {
        if p == NO_ID {
            continue;
        }
        match parent_ids.resolve(p, &by_id) {
            Some(parent) => frames[i].parent = Some(parent),
            None => warnings.push(format!(
                "frame {} names parent {}, which is not in stackFrames",
                ids.get(i),
                parent_ids.text(p)
            )),
        }
    }
    cut_parent_loops(&mut frames, &ids, &mut warnings);
    Ok(FramesRead {
        end: r.i,
        frames,
        ids,
        codes: codes.into_list(),
        names,
        by_id,
        warnings,
    })
}

/// Reads `samples` (the cursor at its value) into `out`; what is not an array, or an item that is not an object,
/// is left out with a warning.
fn read_samples<'a>(
    r: &mut Reader<'a>,
    depth: u32,
    out: &mut Vec<RawSample>,
    sf_ids: &mut IdRefs,
    warnings: &mut Vec<String>,
    behind: &mut Behind,
) -> Option<()> {
    if r.peek()? != b'[' {
        warnings.push("`samples` is not an array; left out".into());
        return r.skip_value(depth);
    }
    let mut odd = 0u64;
    r.items(depth + 1, |r, depth| {
        if r.peek()? != b'{' {
            odd += 1;
            return r.skip_value(depth);
        }
        let (mut sf, mut ts, mut weight) = (None, None, None);
        r.members_any(depth + 1, |r, key, escapes, depth| {
            let start = r.i;
            r.skip_value(depth)?;
            let raw = Some(r.text(start)).filter(|t| *t != "null");
            match &*key_text(key, escapes) {
                b"sf" => sf = raw,
                b"ts" => ts = raw,
                b"weight" => weight = raw,
                _ => {}
            }
            Some(())
        })?;
        out.push(RawSample {
            sf: sf_ids.of(sf.map(unquoted)),
            ts: number(ts).unwrap_or(f64::NAN),
            weight: whole(weight).unwrap_or(1).max(1),
        });
        behind.at(r.i);
        Some(())
    })?;
    if odd > 0 {
        warnings.push(format!(
            "{odd} items of `samples` are not objects; left out"
        ));
    }
    Some(())
}

/// 1-based line and column of byte `at`, for errors.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..at.min(text.len())];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let column = at - memchr::memrchr(b'\n', before).map_or(0, |n| n + 1) + 1;
    (line, column)
}

/// The error for a document the reader stopped in: serde's description when the JSON itself is broken, else what
/// was refused, with where.
fn refused(text: &str, refusal: Refusal) -> ProfileError {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return ProfileError::json("Hermes profile", e);
    }
    let (line, column) = line_column(text, refusal.at);
    ProfileError::new(format!(
        "not a Hermes profile this tool reads: {} (line {line}, column {column})",
        refusal
            .why
            .unwrap_or_else(|| "values nested deeper than 100 levels".into())
    ))
}

/// A Hermes profile, parsed and kept for writing back.
pub struct HermesDoc<'a> {
    text: &'a str,
    /// Where each frame's name is, in frame order.
    names: Vec<NameAt>,
}

impl<'a> HermesDoc<'a> {
    /// Reads a Hermes profile: the document kept for writing back, and its model (frames in `stackFrames` order,
    /// time per frame from the samples).
    pub fn parse(bytes: &'a [u8]) -> Result<(Self, Profile), ProfileError> {
        Self::parse_telling(bytes, &|_| {})
    }

    /// [`parse`](Self::parse), telling `passed` of the bytes read as the readers go.
    pub fn parse_telling(bytes: &'a [u8], passed: Passed) -> Result<(Self, Profile), ProfileError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ProfileError::new(format!("not UTF-8 at byte {}", e.valid_up_to())))?;
        let guess = guess_frames(text);
        let mut warnings = Vec::new();
        let mut samples = Vec::new();
        let mut sf_ids = IdRefs::default();
        let mut r = Reader::new(text);
        if text.starts_with('\u{feff}') {
            r.i = '\u{feff}'.len_utf8();
        }
        r.ws();
        if r.peek() != Some(b'{') {
            let why = Some("a Hermes profile is a JSON object".to_string());
            return Err(refused(text, Refusal { at: r.i, why }));
        }
        let (read, frames) = std::thread::scope(|scope| {
            // The frames on a second thread while this one reads the rest (module docs): a long recording's
            // 188K samples beside 160K frames, each about half the file.
            let mut ahead =
                guess.map(|at| (at, scope.spawn(move || read_frames(text, at, passed))));
            let mut frames: Option<FramesRead> = None;
            let mut why = None;
            let mut behind = Behind::new(passed, 0);
            let mut seen_samples = false;
            let read = r.members_any(1, |r, key, escapes, depth| match &*key_text(key, escapes) {
                b"stackFrames" => {
                    if frames.is_some() {
                        why = Some("`stackFrames` twice".into());
                        return None;
                    }
                    let here = r.i;
                    let read = match ahead.take() {
                        Some((at, thread)) if at == here => thread
                            .join()
                            .unwrap_or_else(|e| std::panic::resume_unwind(e)),
                        other => {
                            ahead = other;
                            read_frames(text, here, passed)
                        }
                    };
                    match read {
                        Ok(f) => {
                            // The frames' thread has told of its bytes.
                            behind.end(here);
                            behind = Behind::new(passed, f.end);
                            r.i = f.end;
                            frames = Some(f);
                            Some(())
                        }
                        Err(refusal) => {
                            r.i = refusal.at;
                            why = refusal.why;
                            None
                        }
                    }
                }
                b"samples" => {
                    if std::mem::replace(&mut seen_samples, true) {
                        why = Some("`samples` twice".into());
                        return None;
                    }
                    read_samples(
                        r,
                        depth,
                        &mut samples,
                        &mut sf_ids,
                        &mut warnings,
                        &mut behind,
                    )
                }
                _ => r.skip_value(depth),
            });
            let at = r.i;
            behind.end(at);
            r.ws();
            let read = match read {
                Some(()) if r.i == text.len() => Ok(()),
                Some(()) => Err(Refusal { at: r.i, why: None }),
                None => Err(Refusal { at, why }),
            };
            // A guess not taken is joined here, not left to the scope: the scope returns once the closure is
            // done, before the thread has run its thread-local destructors (LeakSanitizer counted those).
            if let Some((_, thread)) = ahead {
                let _ = thread.join();
            }
            (read, frames)
        });
        read.map_err(|refusal| refused(text, refusal))?;
        let Some(frames) = frames else {
            return Err(ProfileError::new(
                "a Hermes profile needs `stackFrames`; this one has none",
            ));
        };
        let FramesRead {
            frames,
            ids,
            codes,
            names,
            by_id,
            warnings: frame_warnings,
            ..
        } = frames;
        warnings.splice(0..0, frame_warnings);
        let mut timeline = Vec::with_capacity(samples.len());
        let mut weights = Vec::with_capacity(samples.len());
        let mut unknown = 0u64;
        for s in &samples {
            match sf_ids.resolve(s.sf, &by_id) {
                Some(leaf) if !s.ts.is_nan() => {
                    timeline.push((leaf, s.ts));
                    weights.push(s.weight);
                }
                _ => unknown += 1,
            }
        }
        drop(samples);
        if unknown > 0 {
            warnings.push(format!(
                "{unknown} samples name no frame of stackFrames (or have no time); left out"
            ));
        }
        // Samples come in time order from Hermes; a file that is not keeps what can be said (no negative times).
        let mut self_us = vec![0.0; frames.len()];
        let mut self_samples = vec![0u64; frames.len()];
        let mut last = 0.0;
        for ((&(leaf, _), weight), d) in
            timeline.iter().zip(weights).zip(durations(&timeline, None))
        {
            self_us[leaf as usize] += d;
            self_samples[leaf as usize] += u64::from(weight);
            last = d;
        }
        let profile = Profile {
            format: ProfileFormat::Hermes,
            total_us: self_us.iter().sum(),
            samples: timeline.len() as u64,
            start_us: timeline.first().map(|t| t.1),
            end_us: timeline.last().map(|t| t.1 + last),
            timeline,
            frames,
            ids,
            codes,
            self_us,
            self_samples,
            warnings,
        };
        Ok((HermesDoc { text, names }, profile))
    }

    /// Writes the profile back with each frame's `name` as metro-symbolicate writes it, `function(source:line:column)`
    /// (line 1-based, column 0-based), so its readers keep working; every other byte as it was. `rewrites` is by
    /// frame, in the model's frame order.
    pub fn write(&self, rewrites: &Rewrites, out: &mut impl Write) -> io::Result<()> {
        self.write_telling(rewrites, out, &|_| {})
    }

    /// [`write`](Self::write), telling `passed` of the input's bytes as they are written.
    pub fn write_telling(
        &self,
        rewrites: &Rewrites,
        out: &mut impl Write,
        passed: Passed,
    ) -> io::Result<()> {
        let mut behind = Behind::new(passed, 0);
        let b = self.text.as_bytes();
        let mut at = 0;
        // A rewrite's JSON name once per rewrite, not per frame (frames repeat places).
        let mut rendered: FxHashMap<u32, String> = FxHashMap::default();
        let mut own_name;
        for (i, &NameAt(n)) in self.names.iter().enumerate() {
            let Some((k, r)) = rewrites.index_of(i).zip(rewrites.of(i)) else {
                continue;
            };
            let insert = n & INSERT_NAME != 0;
            let start = n & !INSERT_NAME;
            let end = if insert {
                start
            } else {
                let mut v = Reader::new(self.text);
                v.i = start;
                v.skip_value(1).map_or(start, |()| v.i)
            };
            let name: &str = if r.function.is_some() {
                rendered.entry(k).or_insert_with(|| name_json(r, ""))
            } else {
                // No original name: the profile's own function name, at the original place.
                let own = text(Some(&self.text[start..end]).filter(|t| !t.is_empty()))
                    .unwrap_or_default();
                own_name = name_json(r, function_part(&own));
                &own_name
            };
            behind.copy(out, b, at..start)?;
            if insert {
                // A frame without a name gets one, first in its object.
                let rest = self.text[start..].trim_start();
                out.write_all(b"\"name\":")?;
                out.write_all(name.as_bytes())?;
                if !rest.starts_with('}') {
                    out.write_all(b",")?;
                }
            } else {
                out.write_all(name.as_bytes())?;
            }
            at = end;
        }
        behind.copy(out, b, at..b.len())?;
        behind.end(b.len());
        Ok(())
    }
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

/// Whether a frame's `category` says JavaScript (the others: `root`, `Native`, …).
fn is_javascript(category: Option<&str>) -> bool {
    category.is_some_and(|c| c == "\"JavaScript\"")
        || (category.is_some_and(|c| c.contains('\\'))
            && text(category).as_deref() == Some("JavaScript"))
}

/// What a frame runs, from its name, category, URL and kind of position.
fn code_of_frame(f: &RawFrame, strings: &mut Strings) -> Code {
    let name = text(f.name).unwrap_or_default();
    let function = function_part(&name);
    let is_js = is_javascript(f.category);
    let is_bytecode = f.func_virt_addr.is_some();
    let url = match text(f.url) {
        Some(u) => Some(strings.get(&u)),
        None if !is_bytecode => file_part(&name).map(|f| strings.get(f)),
        None => None,
    };
    Code {
        function: (is_js && !function.is_empty() && function != "anonymous")
            .then(|| strings.get(function)),
        name: strings.get(&name),
        url,
        kind: if is_js {
            FrameKind::JavaScript
        } else {
            FrameKind::Engine
        },
        bytecode: is_bytecode && is_js,
    }
}

/// A frame's positions (its parent is linked once every id is known).
fn frame_of(f: &RawFrame, code: u32) -> Frame {
    if !is_javascript(f.category) {
        return Frame {
            parent: None,
            code,
            position: None,
            function_start: None,
        };
    }
    // 1-based line and column (module docs), to 0-based.
    let one_based = |l: Option<&str>, c: Option<&str>| {
        let (l, c) = (whole(l)?, whole(c)?);
        Some(GeneratedPosition {
            line: l.checked_sub(1)?,
            column: c.checked_sub(1)?,
        })
    };
    let (position, function_start) = if f.func_virt_addr.is_some() {
        // Line 1, column `funcVirtAddr + offset` (module docs).
        let base = whole(f.func_virt_addr);
        let at = |offset: u32| {
            let column = base?.checked_add(offset)?;
            Some(GeneratedPosition { line: 0, column })
        };
        (whole(f.offset).and_then(at), at(0))
    } else {
        (
            one_based(f.line, f.column),
            one_based(f.func_line, f.func_column),
        )
    };
    Frame {
        parent: None,
        code,
        position,
        function_start,
    }
}

/// Reads a Hermes sampling profile.
pub fn read(bytes: &[u8]) -> Result<Profile, ProfileError> {
    Ok(HermesDoc::parse(bytes)?.1)
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
        assert_eq!(p.ids.get(4), "5");
        assert_eq!(p.code(4).function.as_deref(), Some("leaf"));
        assert_eq!(p.code(4).url.as_deref(), Some("t.js"));
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
        assert_eq!(p.code(5).kind, FrameKind::Engine);
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
        assert!(p.code(1).bytecode);
        assert_eq!(p.code(1).url, None);
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
        let (doc, _) = HermesDoc::parse(SOURCE_RUN.as_bytes()).unwrap();
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

    /// The byte ranges told of cover the input, in steps, and telling changes no answer.
    #[test]
    fn readers_and_writer_tell_of_every_byte_passed() {
        let mut text = String::from(r#"{"traceEvents":[],"samples":["#);
        let n = 60_000;
        for i in 0..n {
            let sep = if i > 0 { "," } else { "" };
            text.push_str(&format!(
                r#"{sep}{{"cpu":"-1","name":"","ts":"{}","pid":1,"tid":"1","weight":"1","sf":{}}}"#,
                100 + i,
                2 + i % 7
            ));
        }
        text.push_str(r#"],"stackFrames":{"1":{"name":"[root]","category":"root"}"#);
        for i in 2..n {
            text.push_str(&format!(r#","{i}":{{"funcVirtAddr":"{}","offset":"3","name":"f{}","category":"JavaScript","parent":{}}}"#, i * 10, i % 50, i - 1));
        }
        text.push_str("}}");
        assert!(text.len() > 2 * Behind::STEP, "{}", text.len());
        let told = std::sync::Mutex::new(Vec::new());
        let passed = |r: std::ops::Range<usize>| told.lock().unwrap().push(r);
        let (doc, p) = HermesDoc::parse_telling(text.as_bytes(), &passed).unwrap();
        let (_, plain) = HermesDoc::parse(text.as_bytes()).unwrap();
        assert_eq!((p.frames, p.timeline), (plain.frames, plain.timeline));
        let covered = |ranges: &mut Vec<std::ops::Range<usize>>| {
            ranges.sort_by_key(|r| r.start);
            let mut end = 0;
            for r in ranges.iter() {
                assert!(r.start <= end, "a gap before {r:?}");
                end = end.max(r.end);
            }
            end
        };
        let mut parsing = std::mem::take(&mut *told.lock().unwrap());
        assert!(parsing.len() > 2);
        assert_eq!(covered(&mut parsing), text.len());
        let rewrites = Rewrites::per_frame(vec![
            Some(Rewrite {
                function: Some("g".into()),
                source: "a.js".into(),
                line: 0,
                column: 0,
            });
            n as usize - 1
        ]);
        let (mut out, mut plain_out) = (Vec::new(), Vec::new());
        doc.write_telling(&rewrites, &mut out, &passed).unwrap();
        doc.write(&rewrites, &mut plain_out).unwrap();
        assert_eq!(out, plain_out);
        let mut writing = std::mem::take(&mut *told.lock().unwrap());
        assert!(writing.len() > 2);
        assert_eq!(covered(&mut writing), text.len());
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
        // A member the model reads, twice, is refused with where (serde's derived structs refuse it too).
        for twice in [
            r#"{"samples":[],"samples":[],"stackFrames":{}}"#,
            r#"{"stackFrames":{},"stackFrames":{}}"#,
            r#"{"stackFrames":{"1":{"name":"a","name":"b"}}}"#,
        ] {
            let e = read(twice.as_bytes()).unwrap_err().message;
            assert!(e.contains("twice") && e.contains("line 1, column"), "{e}");
        }
    }
}
