//! Where the time went, by original function, file or package: each frame's self time (sampled as the leaf) and
//! total time (sampled anywhere below it, counted once per sample however deep a recursion goes).

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::{FrameKind, Profile};

/// What a frame is in the original program, as the caller found it through the maps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameOrigin {
    /// The original function's name; `None`: anonymous or top-level code.
    pub function: Option<String>,
    /// Known to be a script's top-level code, not a function.
    pub top_level: bool,
    /// The original source, as the caller shows it.
    pub source: String,
    /// 0-based line of the function (its start when the profile gives it, else the frame's).
    pub line: u32,
    /// The package of the source, by its map's rule (`composition::Packages`, the one `explore` uses).
    pub package: String,
}

/// How rows are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// A row per original function (its name, source and line).
    Function,
    /// A row per original source.
    File,
    /// A row per package ([`crate::bundle::composition::Packages`]).
    Package,
}

/// One row: a function (or file, or package) and its time.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The function's name (`(anonymous)` for none); for an unmapped frame, the profile's name. `None` when grouped
    /// by file or package.
    pub function: Option<String>,
    /// The original source, `None` when grouped by package; for an unmapped frame, the profile's script, if it names
    /// one.
    pub source: Option<String>,
    /// 0-based.
    pub line: Option<u32>,
    /// The package of the original source ([`FrameOrigin::package`]); `None` for an unmapped frame.
    pub package: Option<String>,
    /// Not at an original position: engine frames, frames without a map or outside what it maps.
    pub unmapped: bool,
    /// Time sampled with one of the row's frames as the leaf, µs.
    pub self_us: f64,
    /// Time sampled in or below the row's frames, µs, each sample counted once however deep a recursion goes.
    pub total_us: f64,
    /// Samples with one of the row's frames as the leaf.
    pub self_samples: u64,
}

/// What tells rows apart: function, source, line, package.
type RowKey = (Option<String>, Option<String>, Option<u32>, Option<String>);

/// A row for a mapped frame's origin.
fn origin_row(o: &FrameOrigin, by: GroupBy) -> Row {
    let package = Some(o.package.clone());
    let (function, source, line) = match by {
        GroupBy::Function => (
            Some(o.function.clone().unwrap_or_else(|| {
                if o.top_level {
                    "(top level)"
                } else {
                    "(anonymous)"
                }
                .into()
            })),
            Some(o.source.clone()),
            Some(o.line),
        ),
        GroupBy::File => (None, Some(o.source.clone()), None),
        GroupBy::Package => (None, None, None),
    };
    Row {
        function,
        source,
        line,
        package,
        unmapped: false,
        self_us: 0.0,
        total_us: 0.0,
        self_samples: 0,
    }
}

/// The rows of `profile` grouped `by`, the largest self time first. A frame's origin is `origins[o]` for
/// `origin_of[frame] == Some(o)`; frames without one (engine frames, frames no map answered) keep the profile's own
/// name and script, whatever the grouping, so the time adds up.
pub fn summarize(
    profile: &Profile,
    origin_of: &[Option<u32>],
    origins: &[Option<FrameOrigin>],
    by: GroupBy,
) -> Vec<Row> {
    let n = profile.frames.len();
    let mut rows: Vec<Row> = Vec::new();
    let mut by_key: HashMap<RowKey, usize> = HashMap::new();
    let mut row_of_origin: Vec<Option<usize>> = vec![None; origins.len()];
    // Names and URLs are shared strings (`Strings`): an unmapped frame's row is found by their addresses.
    let mut row_of_unmapped: FxHashMap<(usize, usize), usize> = FxHashMap::default();
    let mut key_index = Vec::with_capacity(n);
    for (i, frame) in profile.frames.iter().enumerate() {
        let code = &profile.codes[frame.code as usize];
        let origin = origin_of
            .get(i)
            .copied()
            .flatten()
            .and_then(|o| Some((o as usize, origins.get(o as usize)?.as_ref()?)));
        let k = match origin {
            Some((o, origin)) => *row_of_origin[o].get_or_insert_with(|| {
                let row = origin_row(origin, by);
                let key = (
                    row.function.clone(),
                    row.source.clone(),
                    row.line,
                    row.package.clone(),
                );
                *by_key.entry(key).or_insert_with(|| {
                    rows.push(row);
                    rows.len() - 1
                })
            }),
            None => {
                let name: &str = match code.kind {
                    FrameKind::Engine => &code.name,
                    FrameKind::JavaScript => code.function.as_deref().unwrap_or("(anonymous)"),
                };
                let url = code.url.as_deref().map_or(0, |u| u.as_ptr() as usize);
                *row_of_unmapped
                    .entry((name.as_ptr() as usize, url))
                    .or_insert_with(|| {
                        rows.push(Row {
                            function: Some(name.to_string()),
                            source: code.url.as_deref().map(str::to_string),
                            line: None,
                            package: None,
                            unmapped: true,
                            self_us: 0.0,
                            total_us: 0.0,
                            self_samples: 0,
                        });
                        rows.len() - 1
                    })
            }
        };
        key_index.push(k);
        rows[k].self_us += profile.self_us[i];
        rows[k].self_samples += profile.self_samples[i];
    }
    // Subtree times, children before parents. Children as one array (by parent, in frame order).
    let mut first_child = vec![0u32; n + 1];
    let mut roots = Vec::new();
    for (i, f) in profile.frames.iter().enumerate() {
        match f.parent {
            Some(p) => first_child[p as usize + 1] += 1,
            None => roots.push(i),
        }
    }
    for i in 0..n {
        first_child[i + 1] += first_child[i];
    }
    let mut filled = first_child.clone();
    let mut child_list = vec![0u32; first_child[n] as usize];
    for (i, f) in profile.frames.iter().enumerate() {
        if let Some(p) = f.parent {
            child_list[filled[p as usize] as usize] = i as u32;
            filled[p as usize] += 1;
        }
    }
    let children = |i: usize| {
        child_list[first_child[i] as usize..first_child[i + 1] as usize]
            .iter()
            .map(|&c| c as usize)
    };
    let mut order = Vec::with_capacity(n);
    let mut stack = roots.clone();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children(i));
    }
    let mut subtree = profile.self_us.clone();
    for &i in order.iter().rev() {
        if let Some(p) = profile.frames[i].parent {
            subtree[p as usize] += subtree[i];
        }
    }
    // A row's total: the subtrees of its outermost frames on each path (a recursion counts once).
    let mut active = vec![0u32; rows.len()];
    let mut walk: Vec<(usize, bool)> = roots.iter().map(|&r| (r, false)).collect();
    while let Some((i, leaving)) = walk.pop() {
        let k = key_index[i];
        if leaving {
            active[k] -= 1;
            continue;
        }
        if active[k] == 0 {
            rows[k].total_us += subtree[i];
        }
        active[k] += 1;
        walk.push((i, true));
        walk.extend(children(i).map(|c| (c, false)));
    }
    rows.sort_by(|a, b| {
        b.self_us
            .total_cmp(&a.self_us)
            .then(b.total_us.total_cmp(&a.total_us))
    });
    rows
}

/// Microseconds as milliseconds, to 0.01 ms (what the tables and JSON show).
pub fn ms(us: f64) -> f64 {
    (us / 1000.0 * 100.0).round() / 100.0
}

/// `part` of `total` in percent, to 0.1.
pub fn percent(part: f64, total: f64) -> f64 {
    if total > 0.0 {
        (part / total * 1000.0).round() / 10.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Code, Frame, FrameIds, ProfileFormat};

    fn frame(code: u32, parent: Option<u32>) -> Frame {
        Frame {
            parent,
            code,
            position: None,
            function_start: None,
        }
    }

    fn code(name: &str) -> Code {
        Code {
            name: name.into(),
            function: Some(name.into()),
            url: Some("app.js".into()),
            kind: FrameKind::JavaScript,
            bytecode: false,
        }
    }

    #[test]
    fn self_and_total_with_recursion_counted_once() {
        // main → fib → fib → leaf; main → gc.
        let mut gc = code("(garbage collector)");
        gc.kind = FrameKind::Engine;
        gc.url = None;
        gc.function = None;
        let profile = Profile {
            format: ProfileFormat::CpuProfile,
            frames: vec![
                frame(0, None),
                frame(1, Some(0)),
                frame(2, Some(1)),
                frame(3, Some(2)),
                frame(4, Some(0)),
            ],
            ids: FrameIds::default(),
            codes: vec![code("main"), code("fib"), code("fib2"), code("leaf"), gc],
            self_us: vec![1.0, 2.0, 3.0, 4.0, 5.0],
            self_samples: vec![1, 1, 1, 1, 1],
            total_us: 15.0,
            samples: 5,
            timeline: Vec::new(),
            start_us: None,
            end_us: None,
            warnings: Vec::new(),
        };
        let origin = |f: &str, line| {
            Some(FrameOrigin {
                function: Some(f.into()),
                top_level: false,
                source: "src/math.js".into(),
                line,
                package: "src".into(),
            })
        };
        // Both fib frames are the same original function.
        let origins = vec![
            origin("main", 0),
            origin("fib", 4),
            origin("fib", 4),
            origin("leaf", 9),
            None,
        ];
        let origin_of: Vec<Option<u32>> = (0..5).map(|i| (i < 4).then_some(i as u32)).collect();
        let rows = summarize(&profile, &origin_of, &origins, GroupBy::Function);
        let row = |name: &str| {
            rows.iter()
                .find(|r| r.function.as_deref() == Some(name))
                .unwrap()
        };
        assert_eq!((row("fib").self_us, row("fib").total_us), (5.0, 9.0));
        assert_eq!((row("main").self_us, row("main").total_us), (1.0, 15.0));
        assert!(row("(garbage collector)").unmapped);
        assert_eq!(rows[0].function.as_deref(), Some("fib"));
        let files = summarize(&profile, &origin_of, &origins, GroupBy::File);
        assert_eq!(files.iter().find(|r| !r.unmapped).unwrap().total_us, 15.0);
        let packages = summarize(&profile, &origin_of, &origins, GroupBy::Package);
        assert_eq!(packages.len(), 2);
    }
}
