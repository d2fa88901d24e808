//! A Chrome DevTools performance trace (an array of trace events, or `{traceEvents: [...]}`): each CPU profile is a
//! `Profile` event (`args.data.startTime`) and `ProfileChunk` events with the same `pid` and `id`, each bringing more
//! `cpuProfile.nodes` (with `parent` links), `cpuProfile.samples` and `timeDeltas` — the V8 profiler's data sent in
//! pieces, positions as in a `.cpuprofile`. Written back with the chunks' `callFrame`s at their original functions,
//! every other event as it was.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::cpuprofile::{assemble, frames_of, timeline, FrameList, RawNode, ScriptIds};
use super::{Profile, ProfileError, ProfileFormat, Rewrites};

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow, default)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    pid: Option<&'a RawValue>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Args<'a> {
    #[serde(borrow)]
    data: Option<Data<'a>>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(rename = "startTime")]
    start_time: Option<f64>,
    #[serde(borrow, rename = "cpuProfile")]
    cpu_profile: Option<ChunkProfile<'a>>,
    #[serde(rename = "timeDeltas")]
    time_deltas: Option<Vec<f64>>,
}

#[derive(Deserialize)]
struct ChunkProfile<'a> {
    #[serde(borrow, default)]
    nodes: Vec<RawNode<'a>>,
    #[serde(default)]
    samples: Vec<u64>,
}

#[derive(Deserialize)]
struct Wrapped<'a> {
    #[serde(borrow, rename = "traceEvents")]
    trace_events: Vec<&'a RawValue>,
}

/// One CPU profile of the trace, gathered from its chunks.
#[derive(Default)]
struct Gathered<'a> {
    key: String,
    start: Option<f64>,
    nodes: Vec<RawNode<'a>>,
    samples: Vec<u64>,
    deltas: Vec<f64>,
}

/// A trace, parsed and kept for writing back.
pub struct ChromeTraceDoc<'a> {
    text: &'a str,
    events: Vec<&'a RawValue>,
    /// Where the events sit in `text` when they are wrapped in `{traceEvents: …}` (written back around them).
    wrapped: bool,
    profiles: Vec<Gathered<'a>>,
}

fn key_of(e: &Event) -> String {
    format!(
        "{}/{}",
        e.pid.map_or("", |p| p.get()),
        e.id.map_or("", |i| i.get().trim_matches('"'))
    )
}

impl<'a> ChromeTraceDoc<'a> {
    /// Reads a trace (a JSON array of events, or an object with `traceEvents`), gathering its `Profile` and
    /// `ProfileChunk` events per profile (by `pid` and `id`); `Err` when it cannot be read (not UTF-8 or not JSON, an
    /// event's `args` malformed) or holds no CPU profile.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ProfileError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ProfileError::new(format!("not UTF-8 at byte {}", e.valid_up_to())))?
            .trim_start_matches('\u{feff}');
        let trimmed = text.trim_start();
        let (events, wrapped) = if trimmed.starts_with('[') {
            (
                serde_json::from_str::<Vec<&RawValue>>(text)
                    .map_err(|e| ProfileError::json("Chrome trace", e))?,
                false,
            )
        } else {
            (
                serde_json::from_str::<Wrapped>(text)
                    .map_err(|e| ProfileError::json("Chrome trace", e))?
                    .trace_events,
                true,
            )
        };
        let mut profiles: Vec<Gathered> = Vec::new();
        let mut by_key: HashMap<String, usize> = HashMap::new();
        for (k, raw) in events.iter().enumerate() {
            let Ok(e) = serde_json::from_str::<Event>(raw.get()) else {
                continue;
            };
            if e.name != "Profile" && e.name != "ProfileChunk" {
                continue;
            }
            let data = e
                .args
                .map(|a| serde_json::from_str::<Args>(a.get()))
                .transpose()
                .map_err(|err| ProfileError::new(format!("trace event {k} ({}): {err}", e.name)))?
                .and_then(|a| a.data);
            let key = key_of(&e);
            let i = *by_key.entry(key.clone()).or_insert_with(|| {
                profiles.push(Gathered {
                    key,
                    ..Gathered::default()
                });
                profiles.len() - 1
            });
            let Some(data) = data else { continue };
            let p = &mut profiles[i];
            if data.start_time.is_some() {
                p.start = data.start_time;
            }
            if let Some(cp) = data.cpu_profile {
                p.nodes.extend(cp.nodes);
                p.samples.extend(cp.samples);
            }
            p.deltas.extend(data.time_deltas.unwrap_or_default());
        }
        if profiles.is_empty() {
            return Err(ProfileError::new(
                "this trace holds no CPU profile (no Profile or ProfileChunk events): record it with the JavaScript \
                 samples category on (disabled-by-default-v8.cpu_profiler)",
            ));
        }
        Ok(ChromeTraceDoc {
            text,
            events,
            wrapped,
            profiles,
        })
    }

    /// Frames of every profile in turn; ids are node ids, or `PROFILE:NODE` when the trace holds several profiles.
    pub fn profile(&self) -> Profile {
        let several = self.profiles.len() > 1;
        let mut warnings = Vec::new();
        let mut list = FrameList::default();
        let mut line = Vec::new();
        let (mut start, mut end): (Option<f64>, Option<f64>) = (None, None);
        for (n, g) in self.profiles.iter().enumerate() {
            let index = frames_of(
                &mut list,
                &g.nodes,
                |id| {
                    if several {
                        format!("{n}:{id}")
                    } else {
                        id.to_string()
                    }
                },
                &mut warnings,
            );
            let t = timeline(
                &g.samples,
                &g.deltas,
                g.start.unwrap_or(0.0),
                &index,
                &mut warnings,
            );
            start = start.into_iter().chain(g.start).reduce(f64::min);
            end = end
                .into_iter()
                .chain(t.last().map(|l| l.1))
                .reduce(f64::max);
            line.extend(t);
        }
        line.sort_by(|a, b| a.1.total_cmp(&b.1));
        assemble(ProfileFormat::ChromeTrace, list, line, start, end, warnings)
    }

    /// Writes the trace back with each rewritten node's `callFrame` at its original function; every other event as
    /// it was.
    pub fn write(&self, rewrites: &Rewrites, out: &mut impl Write) -> io::Result<()> {
        // Each profile's frames start after the previous profiles' nodes (as in `profile`).
        let mut base = HashMap::new();
        let mut n = 0;
        for g in &self.profiles {
            base.insert(g.key.clone(), n);
            n += g.nodes.len();
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut scripts = ScriptIds::default();
        if self.wrapped {
            // `{…"traceEvents":[` … `]…}`: the text around the events stays as written.
            let first = self
                .events
                .first()
                .map_or(self.text.len(), |e| offset_in(self.text, e.get()));
            let last = self
                .events
                .last()
                .map_or(first, |e| offset_in(self.text, e.get()) + e.get().len());
            out.write_all(&self.text.as_bytes()[..first])?;
            self.write_events(rewrites, &base, &mut seen, &mut scripts, out)?;
            return out.write_all(&self.text.as_bytes()[last..]);
        }
        out.write_all(b"[")?;
        self.write_events(rewrites, &base, &mut seen, &mut scripts, out)?;
        out.write_all(b"]")
    }

    fn write_events(
        &self,
        rewrites: &Rewrites,
        base: &HashMap<String, usize>,
        seen: &mut HashMap<String, usize>,
        scripts: &mut ScriptIds,
        out: &mut impl Write,
    ) -> io::Result<()> {
        for (k, raw) in self.events.iter().enumerate() {
            if k > 0 {
                out.write_all(b",")?;
            }
            let chunk = serde_json::from_str::<Event>(raw.get())
                .ok()
                .filter(|e| e.name == "ProfileChunk");
            let Some(e) = chunk else {
                out.write_all(raw.get().as_bytes())?;
                continue;
            };
            let key = key_of(&e);
            let first = base.get(&key).copied().unwrap_or(0) + seen.get(&key).copied().unwrap_or(0);
            let mut value: serde_json::Value = serde_json::from_str(raw.get())?;
            let nodes = value
                .pointer_mut("/args/data/cpuProfile/nodes")
                .and_then(serde_json::Value::as_array_mut);
            let count = nodes.as_ref().map_or(0, |n| n.len());
            if let Some(nodes) = nodes {
                for (j, node) in nodes.iter_mut().enumerate() {
                    let Some(r) = rewrites.of(first + j) else {
                        continue;
                    };
                    let cf = &mut node["callFrame"];
                    if let Some(f) = &r.function {
                        cf["functionName"] = f.as_str().into();
                    }
                    // A trace writes `scriptId` as a number.
                    cf["scriptId"] = scripts.of(&r.source).into();
                    cf["url"] = r.source.as_str().into();
                    cf["lineNumber"] = r.line.into();
                    cf["columnNumber"] = r.column.into();
                }
            }
            *seen.entry(key).or_default() += count;
            serde_json::to_writer(&mut *out, &value)?;
        }
        Ok(())
    }
}

/// The byte offset of `part`, a slice of `whole`.
fn offset_in(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// Reads a Chrome trace into the profile model.
pub fn read(bytes: &[u8]) -> Result<Profile, ProfileError> {
    Ok(ChromeTraceDoc::parse(bytes)?.profile())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Rewrite;
    use crate::GeneratedPosition;

    const TRACE: &str = r#"{"traceEvents":[{"name":"TracingStartedInBrowser","ph":"I","pid":1,"ts":1},{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":2,"ts":100,"args":{"data":{"startTime":100}}},{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":2,"ts":200,"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"codeType":"other","columnNumber":-1,"functionName":"(root)","lineNumber":-1,"scriptId":0,"url":""},"id":1},{"callFrame":{"codeType":"JS","columnNumber":41,"functionName":"t","lineNumber":0,"scriptId":5,"url":"http://localhost/app.js"},"id":2,"parent":1}],"samples":[2,2]},"timeDeltas":[10,20]}}},{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":2,"ts":300,"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"codeType":"JS","columnNumber":7,"functionName":"u","lineNumber":0,"scriptId":5,"url":"http://localhost/app.js"},"id":3,"parent":2}],"samples":[3]},"timeDeltas":[5]}}}],"metadata":{"source":"DevTools"}}"#;

    #[test]
    fn chunks_gather_into_one_profile() {
        let p = read(TRACE.as_bytes()).unwrap();
        assert_eq!(p.format, ProfileFormat::ChromeTrace);
        assert_eq!(p.frames.len(), 3);
        assert_eq!(p.frames[2].parent, Some(1));
        assert_eq!(
            p.frames[1].position,
            Some(GeneratedPosition {
                line: 0,
                column: 41
            })
        );
        assert_eq!(p.samples, 3);
        // 110, 130, 135: the last sample for the mean interval (no end time in a trace).
        assert_eq!(p.self_us[1], 20.0 + 5.0);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn written_back_with_original_call_frames() {
        let doc = ChromeTraceDoc::parse(TRACE.as_bytes()).unwrap();
        let mut rewrites = vec![None; 3];
        rewrites[2] = Some(Rewrite {
            function: Some("update".into()),
            source: "src/u.js".into(),
            line: 2,
            column: 9,
        });
        let mut out = Vec::new();
        doc.write(&Rewrites::per_frame(rewrites), &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let b: serde_json::Value = serde_json::from_str(TRACE).unwrap();
        let cf = &v["traceEvents"][3]["args"]["data"]["cpuProfile"]["nodes"][0]["callFrame"];
        assert_eq!(cf["functionName"], "update");
        assert_eq!(cf["url"], "src/u.js");
        assert_eq!(
            (cf["lineNumber"].as_u64(), cf["columnNumber"].as_u64()),
            (Some(2), Some(9))
        );
        assert_eq!(v["traceEvents"][2], b["traceEvents"][2]);
        assert_eq!(v["metadata"], b["metadata"]);
        assert!(read(br#"[{"name":"x","ph":"I"}]"#)
            .unwrap_err()
            .message
            .contains("no CPU profile"));
    }
}
