//! V8's `.cpuprofile` (the DevTools protocol's `Profiler.Profile`: `nodes` with `callFrame`, `children` or
//! `parent`, `hitCount`, `positionTicks`; `startTime`, `endTime`, `samples`, `timeDeltas` in µs), read into the
//! profile model and written back with each node's `callFrame` at its original function; and a Hermes profile
//! converted to one (`write_from`), what hermes-profile-transformer is used for.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};

use serde::de::MapAccess;

use crate::json::members::{Member, Members};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{
    cut_parent_loops, durations, Code, Codes, Frame, FrameIds, FrameKind, Profile, ProfileError,
    ProfileFormat, Rewrite, Rewrites, Strings,
};
use crate::GeneratedPosition;

#[derive(Deserialize)]
pub(super) struct RawCallFrame<'a> {
    #[serde(borrow, rename = "functionName", default)]
    pub function_name: Cow<'a, str>,
    #[serde(borrow, rename = "scriptId")]
    pub script_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub url: Cow<'a, str>,
    #[serde(rename = "lineNumber", default = "minus_one")]
    pub line_number: i64,
    #[serde(rename = "columnNumber", default = "minus_one")]
    pub column_number: i64,
    #[serde(borrow, rename = "codeType")]
    pub code_type: Option<&'a RawValue>,
}

fn minus_one() -> i64 {
    -1
}

#[derive(Deserialize)]
pub(super) struct RawNode<'a> {
    pub id: u64,
    #[serde(borrow, rename = "callFrame")]
    pub call_frame: RawCallFrame<'a>,
    #[serde(borrow, rename = "hitCount")]
    pub hit_count: Option<&'a RawValue>,
    pub children: Option<Vec<u64>>,
    pub parent: Option<u64>,
    #[serde(borrow, rename = "positionTicks")]
    pub position_ticks: Option<&'a RawValue>,
    #[serde(borrow, rename = "deoptReason")]
    pub deopt_reason: Option<&'a RawValue>,
}

enum TopValue<'a> {
    Nodes(Vec<RawNode<'a>>),
    Samples(&'a RawValue, Vec<u64>),
    TimeDeltas(&'a RawValue, Vec<f64>),
    Number(&'a RawValue, f64),
    Other(&'a RawValue),
}

type Top<'a> = Members<'a, TopValue<'a>>;

impl<'de> Member<'de> for TopValue<'de> {
    const EXPECTING: &'static str = "a .cpuprofile object";

    fn read<A: MapAccess<'de>>(key: &str, map: &mut A) -> Result<Self, A::Error> {
        use serde::de::Error;
        Ok(match key {
            "nodes" => TopValue::Nodes(map.next_value()?),
            "samples" => {
                let raw: &'de RawValue = map.next_value()?;
                TopValue::Samples(
                    raw,
                    serde_json::from_str(raw.get()).map_err(A::Error::custom)?,
                )
            }
            "timeDeltas" => {
                let raw: &'de RawValue = map.next_value()?;
                TopValue::TimeDeltas(
                    raw,
                    serde_json::from_str(raw.get()).map_err(A::Error::custom)?,
                )
            }
            "startTime" | "endTime" => {
                let raw: &'de RawValue = map.next_value()?;
                TopValue::Number(
                    raw,
                    serde_json::from_str(raw.get()).map_err(A::Error::custom)?,
                )
            }
            _ => TopValue::Other(map.next_value()?),
        })
    }
}

/// A V8 frame's kind and positions: engine frames (`(root)`, `(program)`, `(idle)`, `(garbage collector)`, builtins)
/// have no script URL; JavaScript frames' `lineNumber` / `columnNumber` are 0-based (the module docs of `profile`).
fn frame_of(parent: Option<u32>, cf: &RawCallFrame, list: &mut FrameList) -> Frame {
    let position = (cf.line_number >= 0 && cf.column_number >= 0).then(|| GeneratedPosition {
        line: cf.line_number.min(i64::from(u32::MAX)) as u32,
        column: cf.column_number.min(i64::from(u32::MAX)) as u32,
    });
    let js = !cf.url.is_empty();
    let strings = &mut list.strings;
    let code = list.codes.get(Code {
        name: strings.get(&cf.function_name),
        function: (js && !cf.function_name.is_empty()).then(|| strings.get(&cf.function_name)),
        url: js.then(|| strings.get(&cf.url)),
        kind: if js {
            FrameKind::JavaScript
        } else {
            FrameKind::Engine
        },
        bytecode: false,
    });
    Frame {
        parent,
        code,
        position: if js { position } else { None },
        function_start: if js { position } else { None },
    }
}

/// The frames of the node lists read so far (a trace brings several), with their ids and what they share.
#[derive(Default)]
pub(super) struct FrameList {
    frames: Vec<Frame>,
    ids: FrameIds,
    codes: Codes,
    strings: Strings,
}

/// Adds the frames of a node list (ids → indexes, `children` or `parent` → parent links), with warnings for ids
/// named but not present; returns node id → frame index.
pub(super) fn frames_of(
    list: &mut FrameList,
    nodes: &[RawNode],
    id_of: impl Fn(u64) -> String,
    warnings: &mut Vec<String>,
) -> HashMap<u64, usize> {
    let base = list.frames.len();
    let index: HashMap<u64, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id, base + i))
        .collect();
    let mut parents: Vec<Option<u32>> = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            match index.get(&p) {
                Some(&p) => parents[i] = Some(p as u32),
                None => warnings.push(format!(
                    "node {} names parent {p}, which is not in the profile",
                    n.id
                )),
            }
        }
        for c in n.children.iter().flatten() {
            match index.get(c) {
                Some(&c) => parents[c - base] = Some((base + i) as u32),
                None => warnings.push(format!(
                    "node {} names child {c}, which is not in the profile",
                    n.id
                )),
            }
        }
    }
    for (n, p) in nodes.iter().zip(parents) {
        let frame = frame_of(p, &n.call_frame, list);
        list.frames.push(frame);
        list.ids.push(&id_of(n.id));
    }
    index
}

/// Time per node from `samples` (node ids) and `timeDeltas` (µs since the previous sample; the first since
/// `start`).
pub(super) fn timeline(
    samples: &[u64],
    deltas: &[f64],
    start: f64,
    index: &HashMap<u64, usize>,
    warnings: &mut Vec<String>,
) -> Vec<(u32, f64)> {
    if deltas.len() != samples.len() {
        warnings.push(format!(
            "{} samples but {} time deltas: times are taken for the samples that have one",
            samples.len(),
            deltas.len()
        ));
    }
    let mut t = start;
    let mut out = Vec::with_capacity(samples.len());
    let mut unknown = 0;
    for (s, d) in samples.iter().zip(deltas) {
        t += d;
        match index.get(s) {
            Some(&i) => out.push((i as u32, t)),
            None => unknown += 1,
        }
    }
    if unknown > 0 {
        warnings.push(format!(
            "{unknown} samples name no node of the profile; left out"
        ));
    }
    out
}

/// The profile from frames and their samples.
pub(super) fn assemble(
    format: ProfileFormat,
    list: FrameList,
    timeline: Vec<(u32, f64)>,
    start: Option<f64>,
    end: Option<f64>,
    mut warnings: Vec<String>,
) -> Profile {
    let FrameList {
        mut frames,
        ids,
        codes,
        ..
    } = list;
    cut_parent_loops(&mut frames, &ids, &mut warnings);
    let mut self_us = vec![0.0; frames.len()];
    let mut self_samples = vec![0u64; frames.len()];
    for (&(leaf, _), d) in timeline.iter().zip(durations(&timeline, end)) {
        self_us[leaf as usize] += d;
        self_samples[leaf as usize] += 1;
    }
    Profile {
        format,
        total_us: self_us.iter().sum(),
        samples: timeline.len() as u64,
        frames,
        ids,
        codes: codes.into_list(),
        self_us,
        self_samples,
        timeline,
        start_us: start,
        end_us: end,
        warnings,
    }
}

/// A `.cpuprofile`, parsed and kept for writing back.
pub struct CpuProfileDoc<'a> {
    top: Top<'a>,
}

impl<'a> CpuProfileDoc<'a> {
    /// Reads a `.cpuprofile` (UTF-8 JSON with `nodes`), keeping its members as written for writing back.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ProfileError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ProfileError::new(format!("not UTF-8 at byte {}", e.valid_up_to())))?;
        let top: Top = serde_json::from_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| ProfileError::json(".cpuprofile", e))?;
        if !top.0.iter().any(|(_, v)| matches!(v, TopValue::Nodes(_))) {
            return Err(ProfileError::new(
                "a .cpuprofile needs `nodes`; this one has none",
            ));
        }
        Ok(CpuProfileDoc { top })
    }

    fn nodes(&self) -> &[RawNode<'a>] {
        self.top
            .0
            .iter()
            .find_map(|(_, v)| match v {
                TopValue::Nodes(n) => Some(n.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    fn number(&self, key: &str) -> Option<f64> {
        self.top.0.iter().find_map(|(k, v)| match v {
            TopValue::Number(_, n) if k == key => Some(*n),
            _ => None,
        })
    }

    /// The profile model: frames from `nodes`, sample times from `samples` and `timeDeltas` from `startTime`, the end
    /// from `endTime`.
    pub fn profile(&self) -> Profile {
        let mut warnings = Vec::new();
        let mut list = FrameList::default();
        let index = frames_of(&mut list, self.nodes(), |id| id.to_string(), &mut warnings);
        let samples = self
            .top
            .0
            .iter()
            .find_map(|(_, v)| match v {
                TopValue::Samples(_, s) => Some(s.as_slice()),
                _ => None,
            })
            .unwrap_or(&[]);
        let deltas = self
            .top
            .0
            .iter()
            .find_map(|(_, v)| match v {
                TopValue::TimeDeltas(_, d) => Some(d.as_slice()),
                _ => None,
            })
            .unwrap_or(&[]);
        let start = self.number("startTime");
        let timeline = timeline(samples, deltas, start.unwrap_or(0.0), &index, &mut warnings);
        assemble(
            ProfileFormat::CpuProfile,
            list,
            timeline,
            start,
            self.number("endTime"),
            warnings,
        )
    }

    /// Writes the profile back with each rewritten node's `callFrame` at its original function (name, source as
    /// `url`, 0-based position, a `scriptId` per original source); its `positionTicks` (lines of the bundle) are
    /// left out. Every other byte as it was.
    pub fn write(&self, rewrites: &Rewrites, out: &mut impl Write) -> io::Result<()> {
        let mut scripts = ScriptIds::default();
        out.write_all(b"{")?;
        for (k, (key, value)) in self.top.0.iter().enumerate() {
            if k > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, key.as_ref())?;
            out.write_all(b":")?;
            match value {
                TopValue::Other(raw)
                | TopValue::Samples(raw, _)
                | TopValue::TimeDeltas(raw, _)
                | TopValue::Number(raw, _) => out.write_all(raw.get().as_bytes())?,
                TopValue::Nodes(nodes) => {
                    out.write_all(b"[")?;
                    for (i, n) in nodes.iter().enumerate() {
                        if i > 0 {
                            out.write_all(b",")?;
                        }
                        write_node(out, n, rewrites.of(i), &mut scripts)?;
                    }
                    out.write_all(b"]")?;
                }
            }
        }
        out.write_all(b"}")
    }
}

/// A `scriptId` for each original source: DevTools and VS Code group a profile's functions by script. Numbers far
/// above an engine's own ids (V8 counts its scripts from 1).
#[derive(Default)]
pub(super) struct ScriptIds(HashMap<String, u64>);

impl ScriptIds {
    pub(super) fn of(&mut self, source: &str) -> u64 {
        let next = 1_000_000 + self.0.len() as u64;
        *self.0.entry(source.to_string()).or_insert(next)
    }
}

/// One node as V8 writes it, its `callFrame` rewritten when `rewrite` says.
pub(super) fn write_node(
    out: &mut impl Write,
    n: &RawNode,
    rewrite: Option<&Rewrite>,
    scripts: &mut ScriptIds,
) -> io::Result<()> {
    write!(out, "{{\"id\":{},\"callFrame\":", n.id)?;
    write_call_frame(out, &n.call_frame, rewrite, scripts)?;
    if let Some(h) = n.hit_count {
        write!(out, ",\"hitCount\":{}", h.get())?;
    }
    if let Some(c) = &n.children {
        out.write_all(b",\"children\":")?;
        serde_json::to_writer(&mut *out, c)?;
    }
    if let Some(p) = n.parent {
        write!(out, ",\"parent\":{p}")?;
    }
    if let Some(d) = n.deopt_reason {
        write!(out, ",\"deoptReason\":{}", d.get())?;
    }
    if let (Some(t), None) = (n.position_ticks, rewrite) {
        write!(out, ",\"positionTicks\":{}", t.get())?;
    }
    out.write_all(b"}")
}

pub(super) fn write_call_frame(
    out: &mut impl Write,
    cf: &RawCallFrame,
    rewrite: Option<&Rewrite>,
    scripts: &mut ScriptIds,
) -> io::Result<()> {
    out.write_all(b"{\"functionName\":")?;
    match rewrite.and_then(|r| r.function.as_deref()) {
        Some(f) => serde_json::to_writer(&mut *out, f)?,
        None => serde_json::to_writer(&mut *out, cf.function_name.as_ref())?,
    }
    match rewrite {
        Some(r) => {
            write!(out, ",\"scriptId\":\"{}\",\"url\":", scripts.of(&r.source))?;
            serde_json::to_writer(&mut *out, &r.source)?;
            write!(
                out,
                ",\"lineNumber\":{},\"columnNumber\":{}",
                r.line, r.column
            )?;
        }
        None => {
            out.write_all(b",\"scriptId\":")?;
            match cf.script_id {
                Some(s) => out.write_all(s.get().as_bytes())?,
                None => out.write_all(b"\"0\"")?,
            }
            out.write_all(b",\"url\":")?;
            serde_json::to_writer(&mut *out, cf.url.as_ref())?;
            write!(
                out,
                ",\"lineNumber\":{},\"columnNumber\":{}",
                cf.line_number, cf.column_number
            )?;
        }
    }
    if let Some(c) = cf.code_type {
        write!(out, ",\"codeType\":{}", c.get())?;
    }
    out.write_all(b"}")
}

/// Writes `profile` (of any format) as a V8 `.cpuprofile`: one node per frame (`id` its index + 1, `children` from
/// the parent links, one `(root)` above the frames without a parent), `callFrame` at the original where `rewrites`
/// says, else as the profile names the frame; `samples` and `timeDeltas` from its timeline.
pub fn write_from(profile: &Profile, rewrites: &Rewrites, out: &mut impl Write) -> io::Result<()> {
    let n = profile.frames.len();
    let root = n + 1;
    let mut children: Vec<Vec<u64>> = vec![Vec::new(); n + 1];
    for (i, f) in profile.frames.iter().enumerate() {
        children[f.parent.map_or(n, |p| p as usize)].push(i as u64 + 1);
    }
    let mut scripts = ScriptIds::default();
    out.write_all(b"{\"nodes\":[")?;
    write!(out, "{{\"id\":{root},\"callFrame\":{{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1}},\"hitCount\":0,\"children\":")?;
    serde_json::to_writer(&mut *out, &children[n])?;
    out.write_all(b"}")?;
    for (i, f) in profile.frames.iter().enumerate() {
        let code = &profile.codes[f.code as usize];
        let (line, column) = f
            .position
            .map_or((-1, -1), |p| (i64::from(p.line), i64::from(p.column)));
        let cf = RawCallFrame {
            function_name: Cow::Borrowed(code.function.as_deref().unwrap_or(
                if code.kind == FrameKind::Engine {
                    &code.name
                } else {
                    ""
                },
            )),
            script_id: None,
            url: Cow::Borrowed(code.url.as_deref().unwrap_or("")),
            line_number: line,
            column_number: column,
            code_type: None,
        };
        write!(out, ",{{\"id\":{},\"callFrame\":", i + 1)?;
        write_call_frame(out, &cf, rewrites.of(i), &mut scripts)?;
        write!(
            out,
            ",\"hitCount\":{},\"children\":",
            profile.self_samples[i]
        )?;
        serde_json::to_writer(&mut *out, &children[i])?;
        out.write_all(b"}")?;
    }
    let start = profile
        .start_us
        .or(profile.timeline.first().map(|t| t.1))
        .unwrap_or(0.0);
    let end = profile.end_us.unwrap_or(start);
    write!(
        out,
        "],\"startTime\":{},\"endTime\":{},\"samples\":",
        start as i64, end as i64
    )?;
    let ids: Vec<u64> = profile.timeline.iter().map(|t| t.0 as u64 + 1).collect();
    serde_json::to_writer(&mut *out, &ids)?;
    out.write_all(b",\"timeDeltas\":[")?;
    let mut prev = start as i64;
    for (k, &(_, t)) in profile.timeline.iter().enumerate() {
        if k > 0 {
            out.write_all(b",")?;
        }
        let t = t as i64;
        write!(out, "{}", t - prev)?;
        prev = t;
    }
    out.write_all(b"]}")
}

/// Reads a `.cpuprofile` into the profile model.
pub fn read(bytes: &[u8]) -> Result<Profile, ProfileError> {
    Ok(CpuProfileDoc::parse(bytes)?.profile())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: &str = r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,4]},{"id":2,"callFrame":{"functionName":"a","scriptId":"7","url":"file:///w/dist/app.js","lineNumber":0,"columnNumber":120},"hitCount":2,"children":[3],"positionTicks":[{"line":1,"ticks":2}]},{"id":3,"callFrame":{"functionName":"b","scriptId":"7","url":"file:///w/dist/app.js","lineNumber":0,"columnNumber":300},"hitCount":1},{"id":4,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":1}],"startTime":1000,"endTime":1040,"samples":[2,3,2,4],"timeDeltas":[5,10,10,5]}"#;

    #[test]
    fn nodes_are_zero_based_and_times_run_to_the_next_sample() {
        let p = read(PROFILE.as_bytes()).unwrap();
        assert_eq!(p.format, ProfileFormat::CpuProfile);
        assert_eq!(
            p.frames[1].position,
            Some(GeneratedPosition {
                line: 0,
                column: 120
            })
        );
        assert_eq!(p.frames[2].parent, Some(1));
        assert_eq!(p.frames[1].parent, Some(0));
        assert_eq!(p.code(3).kind, FrameKind::Engine);
        // Samples at 1005, 1015, 1025, 1030; the last until endTime 1040.
        assert_eq!(p.self_us, [0.0, 15.0, 10.0, 10.0]);
        assert_eq!(p.total_us, 35.0);
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn written_back_with_original_call_frames() {
        let doc = CpuProfileDoc::parse(PROFILE.as_bytes()).unwrap();
        let mut same = Vec::new();
        doc.write(&Rewrites::per_frame(Vec::new()), &mut same)
            .unwrap();
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_slice(&same).unwrap(),
            serde_json::from_str(PROFILE).unwrap(),
        );
        assert_eq!(a, b);
        let mut rewrites = vec![None; 4];
        rewrites[1] = Some(Rewrite {
            function: Some("parseOrder".into()),
            source: "src/orders.js".into(),
            line: 4,
            column: 23,
        });
        let mut out = Vec::new();
        doc.write(&Rewrites::per_frame(rewrites), &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["nodes"][1]["callFrame"]["functionName"], "parseOrder");
        assert_eq!(v["nodes"][1]["callFrame"]["url"], "src/orders.js");
        assert_eq!(v["nodes"][1]["callFrame"]["lineNumber"], 4);
        assert!(v["nodes"][1].get("positionTicks").is_none());
        assert_eq!(v["nodes"][2], b["nodes"][2]);
        assert_eq!(v["timeDeltas"], b["timeDeltas"]);
    }

    #[test]
    fn any_profile_converts_to_a_cpuprofile() {
        let p = read(PROFILE.as_bytes()).unwrap();
        let mut out = Vec::new();
        write_from(&p, &Rewrites::per_frame(Vec::new()), &mut out).unwrap();
        let again = read(&out).unwrap();
        assert_eq!(again.samples, p.samples);
        assert_eq!(again.total_us, p.total_us);
        assert_eq!(again.frames.len(), p.frames.len() + 1);
    }
}
