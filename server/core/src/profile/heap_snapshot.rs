//! V8 and Hermes heap snapshots and timelines (`.heapsnapshot`, `.heaptimeline`: the DevTools' `HeapProfiler`
//! format): the functions of `trace_function_infos` (the allocation tracker's, one record per function that
//! allocated) at their bundle positions, and the snapshot written back with each mapped record's `script_name`,
//! `line`, `column` and `name` at its original function, as metro-symbolicate's `symbolicateHeapSnapshot` does.
//!
//! Positions: `trace_function_infos` `line` and `column` are **1-based**, 0 meaning unknown. V8's
//! `HeapSnapshotJSONSerializer::SerializeTraceNodeInfos` writes them through `SerializePosition` ("0-based position
//! is converted to 1-based during the serialization", -1 → 0); the position is the function's `SharedFunctionInfo`
//! start (`AllocationTracker::AddFunctionInfo`), the `(` of its parameters as in a `.cpuprofile`. Checked on the
//! recording in `fixtures/profiles/heap` (an arrow `()=>{` at 0-based column 14 of line 0 is written `1`, `15`).
//! V8 resolves them only while the function's `Script` is alive (a weak handle, `UnresolvedLocation`): a snapshot
//! taken after the bundle's code was collected has 0/0 for all of it (`fixtures/profiles/README.md`, "Heap").
//!
//! `locations` (`object_index, script_id, line, column`, 0-based: `HeapSnapshotJSONSerializer::SerializeLocation`
//! writes `line`/`col` as V8 holds them) are not symbolicated, by metro-symbolicate or here: a location names its
//! script only by `script_id`, and the file holds no table from ids to script names (`trace_function_infos` pair
//! some ids with names, but only for scripts that allocated under tracking). With one map given, guessing that every
//! id is the bundle would map node's own scripts through it; they are left as written.
//!
//! Cost: the top-level values are kept as borrowed raw JSON (`RawValue`, 16 B each), and so is each string of
//! `strings` (16 B a string, a few million in a large snapshot); `trace_function_infos` is read into numbers
//! (8 B a field). `nodes` and `edges`, nearly all of a snapshot, are copied through untouched.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};

use serde::de::MapAccess;

use crate::json::members::{Member, Members};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{ProfileError, Rewrite};
use crate::GeneratedPosition;

/// Whether `bytes` look like a heap snapshot: a top-level `"snapshot"` object with `"meta"` near the start (V8 and
/// Hermes write `snapshot` first).
pub fn is_heap_snapshot(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1 << 16)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    let Some(rest) = t.strip_prefix('{') else {
        return false;
    };
    let rest = rest.trim_start();
    rest.starts_with("\"snapshot\"") && rest.contains("\"meta\"")
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow, default)]
    trace_function_info_fields: Vec<Cow<'a, str>>,
    #[serde(borrow, default)]
    location_fields: Vec<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct SnapshotHead<'a> {
    #[serde(borrow)]
    meta: Meta<'a>,
}

enum TopValue<'a> {
    TraceFunctionInfos(Vec<u64>),
    Strings(Vec<&'a RawValue>),
    Locations(&'a RawValue, usize),
    Other(&'a RawValue),
}

type Top<'a> = Members<'a, TopValue<'a>>;

impl<'de> Member<'de> for TopValue<'de> {
    const EXPECTING: &'static str = "a heap snapshot object";

    fn read<A: MapAccess<'de>>(key: &str, map: &mut A) -> Result<Self, A::Error> {
        use serde::de::Error;
        Ok(match key {
            "trace_function_infos" => TopValue::TraceFunctionInfos(map.next_value()?),
            "strings" => TopValue::Strings(map.next_value()?),
            "locations" => {
                let raw: &'de RawValue = map.next_value()?;
                let numbers: Vec<serde::de::IgnoredAny> =
                    serde_json::from_str(raw.get()).map_err(A::Error::custom)?;
                TopValue::Locations(raw, numbers.len())
            }
            _ => TopValue::Other(map.next_value()?),
        })
    }
}

/// One `trace_function_infos` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceFunction {
    /// The record's number (its offset in `trace_function_infos` divided by the field count).
    pub index: usize,
    /// Its `name`, when the records have the field.
    pub name: Option<String>,
    /// `script_name`, when it names one.
    pub script: Option<String>,
    /// The position as written (1-based; 0 unknown).
    pub line: u64,
    /// The column as written (1-based; 0 unknown).
    pub column: u64,
    /// The same position 0-based, when both are known (metro-symbolicate skips 0/0).
    pub position: Option<GeneratedPosition>,
}

/// Where the fields metro-symbolicate reads and writes are in a record.
struct Fields {
    count: usize,
    name: Option<usize>,
    script_name: Option<usize>,
    line: usize,
    column: usize,
}

/// A heap snapshot parsed and kept for writing back.
pub struct HeapSnapshotDoc<'a> {
    top: Top<'a>,
    fields: Option<Fields>,
    location_count: usize,
    location_field_count: usize,
}

impl<'a> HeapSnapshotDoc<'a> {
    /// Reads a heap snapshot (UTF-8 JSON with `snapshot.meta`); its `trace_function_infos` records are listed only when
    /// their fields include `line` and `column`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ProfileError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ProfileError::new(format!("not UTF-8 at byte {}", e.valid_up_to())))?;
        let top: Top = serde_json::from_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| ProfileError::json("heap snapshot", e))?;
        let head = top
            .0
            .iter()
            .find_map(|(k, v)| match v {
                TopValue::Other(raw) if k == "snapshot" => Some(*raw),
                _ => None,
            })
            .ok_or_else(|| {
                ProfileError::new("a heap snapshot needs `snapshot`; this one has none")
            })?;
        let head: SnapshotHead = serde_json::from_str(head.get())
            .map_err(|e| ProfileError::json("heap snapshot's `snapshot.meta`", e))?;
        let position = |name: &str| {
            head.meta
                .trace_function_info_fields
                .iter()
                .position(|f| f == name)
        };
        let fields = match (position("line"), position("column")) {
            (Some(line), Some(column)) => Some(Fields {
                count: head.meta.trace_function_info_fields.len(),
                name: position("name"),
                script_name: position("script_name"),
                line,
                column,
            }),
            _ => None,
        };
        let location_count = top
            .0
            .iter()
            .find_map(|(_, v)| match v {
                TopValue::Locations(_, n) => Some(*n),
                _ => None,
            })
            .unwrap_or(0);
        Ok(HeapSnapshotDoc {
            top,
            fields,
            location_count,
            location_field_count: head.meta.location_fields.len(),
        })
    }

    fn infos(&self) -> &[u64] {
        self.top
            .0
            .iter()
            .find_map(|(_, v)| match v {
                TopValue::TraceFunctionInfos(t) => Some(&t[..]),
                _ => None,
            })
            .unwrap_or(&[])
    }

    fn strings(&self) -> &[&'a RawValue] {
        self.top
            .0
            .iter()
            .find_map(|(_, v)| match v {
                TopValue::Strings(s) => Some(&s[..]),
                _ => None,
            })
            .unwrap_or(&[])
    }

    fn string(&self, index: u64) -> Option<String> {
        let raw = self.strings().get(usize::try_from(index).ok()?)?;
        serde_json::from_str::<String>(raw.get()).ok()
    }

    /// How many `locations` records the snapshot has (left as written: the module docs say why).
    pub fn location_count(&self) -> usize {
        match self.location_field_count {
            0 => 0,
            n => self.location_count / n,
        }
    }

    /// The `trace_function_infos` records, in order.
    pub fn functions(&self) -> Vec<TraceFunction> {
        let Some(f) = &self.fields else {
            return Vec::new();
        };
        self.infos()
            .chunks_exact(f.count)
            .enumerate()
            .map(|(index, r)| {
                let (line, column) = (r[f.line], r[f.column]);
                TraceFunction {
                    index,
                    name: f.name.and_then(|i| self.string(r[i])),
                    script: f
                        .script_name
                        .and_then(|i| self.string(r[i]))
                        .filter(|s| !s.is_empty()),
                    line,
                    column,
                    // metro-symbolicate skips 0/0 only; a record with one of the two unknown is not looked up here.
                    position: (line > 0 && column > 0).then(|| GeneratedPosition {
                        line: (line - 1).min(u64::from(u32::MAX)) as u32,
                        column: (column - 1).min(u64::from(u32::MAX)) as u32,
                    }),
                }
            })
            .collect()
    }

    /// Writes the snapshot back with `rewrites[i]` (by record, as `functions` lists them) applied to record `i`, as
    /// metro-symbolicate's `symbolicateHeapSnapshot` (metro-symbolicate 0.84, `Symbolication.js`) does:
    /// - `script_name` ← the original source, `line` ← `originalLine - outputLineStart + 1` and `column` ←
    ///   `originalColumn - outputColumnStart + 1`, with metro's defaults `outputLineStart` 1 and `outputColumnStart`
    ///   0 applied to its 1-based line and 0-based column: both written 1-based, as V8 writes them (our 0-based
    ///   line and column + 1);
    /// - `name` ← the original function's name when there is one (`originalFunctionName ?? name`), else kept;
    /// - new strings appended to `strings`; a string already there is reused, as `ChromeHeapSnapshotStringTable.add`
    ///   does (its index cache keeps the last index of a repeated string: so does this).
    ///
    /// Everything else is copied as it was read.
    pub fn write(&self, rewrites: &[Option<Rewrite>], out: &mut impl Write) -> io::Result<()> {
        let strings = self.strings();
        let mut infos = self.infos().to_vec();
        let mut added: Vec<String> = Vec::new();
        if let Some(f) = &self.fields {
            let mut index: Option<HashMap<String, u64>> = None;
            let mut intern = |s: &str, added: &mut Vec<String>| -> u64 {
                let index = index.get_or_insert_with(|| {
                    strings
                        .iter()
                        .enumerate()
                        .filter_map(|(i, raw)| {
                            Some((serde_json::from_str::<String>(raw.get()).ok()?, i as u64))
                        })
                        .collect()
                });
                if let Some(&i) = index.get(s) {
                    return i;
                }
                let i = (strings.len() + added.len()) as u64;
                added.push(s.to_string());
                index.insert(s.to_string(), i);
                i
            };
            for (r, rewrite) in infos.chunks_exact_mut(f.count).zip(rewrites) {
                let Some(rw) = rewrite else { continue };
                if let Some(i) = f.script_name {
                    r[i] = intern(&rw.source, &mut added);
                }
                r[f.line] = u64::from(rw.line) + 1;
                r[f.column] = u64::from(rw.column) + 1;
                if let (Some(i), Some(name)) = (f.name, &rw.function) {
                    r[i] = intern(name, &mut added);
                }
            }
        }
        out.write_all(b"{")?;
        for (k, (key, value)) in self.top.0.iter().enumerate() {
            if k > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, key.as_ref())?;
            out.write_all(b":")?;
            match value {
                TopValue::Other(raw) | TopValue::Locations(raw, _) => {
                    out.write_all(raw.get().as_bytes())?
                }
                TopValue::TraceFunctionInfos(_) => {
                    out.write_all(b"[")?;
                    for (i, n) in infos.iter().enumerate() {
                        if i > 0 {
                            out.write_all(b",")?;
                        }
                        write!(out, "{n}")?;
                    }
                    out.write_all(b"]")?;
                }
                TopValue::Strings(raws) => {
                    out.write_all(b"[")?;
                    for (i, raw) in raws.iter().enumerate() {
                        if i > 0 {
                            out.write_all(b",")?;
                        }
                        out.write_all(raw.get().as_bytes())?;
                    }
                    for (i, s) in added.iter().enumerate() {
                        if i > 0 || !raws.is_empty() {
                            out.write_all(b",")?;
                        }
                        serde_json::to_writer(&mut *out, s)?;
                    }
                    out.write_all(b"]")?;
                }
            }
        }
        out.write_all(b"}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAPSHOT: &str = r#"{"snapshot":{"meta":{"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"location_fields":["object_index","script_id","line","column"]},"node_count":0},"nodes":[],"trace_function_infos":[7,1,2,3,0,0,9,0,2,3,1,15,11,1,2,3,4,2],"locations":[0,3,0,14],"strings":["(root)","a","app.js"]}"#;

    #[test]
    fn records_are_read_one_based() {
        assert!(is_heap_snapshot(SNAPSHOT.as_bytes()));
        assert!(!is_heap_snapshot(br#"{"nodes":[],"samples":[]}"#));
        let doc = HeapSnapshotDoc::parse(SNAPSHOT.as_bytes()).unwrap();
        let f = doc.functions();
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].position, None);
        assert_eq!(f[1].name.as_deref(), Some("(root)"));
        assert_eq!(f[1].script.as_deref(), Some("app.js"));
        assert_eq!(
            f[1].position,
            Some(GeneratedPosition {
                line: 0,
                column: 14
            })
        );
        assert_eq!(doc.location_count(), 1);
    }

    #[test]
    fn written_back_as_metro_symbolicate_does() {
        let doc = HeapSnapshotDoc::parse(SNAPSHOT.as_bytes()).unwrap();
        let rw = |function: Option<&str>, source: &str, line, column| {
            Some(Rewrite {
                function: function.map(str::to_string),
                source: source.into(),
                line,
                column,
            })
        };
        let mut out = Vec::new();
        doc.write(
            &[
                None,
                rw(Some("main"), "src/a.js", 9, 2),
                rw(None, "app.js", 0, 0),
            ],
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            r#"{"snapshot":{"meta":{"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"location_fields":["object_index","script_id","line","column"]},"node_count":0},"nodes":[],"trace_function_infos":[7,1,2,3,0,0,9,4,3,3,10,3,11,1,2,3,1,1],"locations":[0,3,0,14],"strings":["(root)","a","app.js","src/a.js","main"]}"#
        );
    }
}
