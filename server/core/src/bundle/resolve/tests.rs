use super::*;
use crate::trace::stack::{parse_stack, PlainInput, StackLine};

/// A map with one segment at each of `columns` of line 0, segment k mapping to line k of `source`.
fn map_at(source: &str, columns: &[u32], debug_id: Option<&str>) -> Vec<u8> {
    let mut mappings = Vec::new();
    let mut last = 0i64;
    for (k, &c) in columns.iter().enumerate() {
        if k > 0 {
            mappings.push(b',');
        }
        crate::map::vlq::encode_signed(i64::from(c) - last, &mut mappings);
        crate::map::vlq::encode_signed(0, &mut mappings);
        crate::map::vlq::encode_signed(i64::from(k > 0), &mut mappings);
        crate::map::vlq::encode_signed(0, &mut mappings);
        last = i64::from(c);
    }
    let mut map = serde_json::json!({
        "version": 3, "sources": [source], "names": [],
        "mappings": String::from_utf8(mappings).unwrap(),
    });
    if let Some(id) = debug_id {
        map["debugId"] = serde_json::json!(id);
    }
    map.to_string().into_bytes()
}

/// Bundles on disk (each with its map beside it), the maps loaded by the place as the CLI and server do.
struct DiskMemo {
    root: PathBuf,
    maps: Vec<SourceMapIndex>,
    loaded: HashMap<PathBuf, usize>,
}

impl DiskMemo {
    fn new(root: &Path) -> Self {
        DiskMemo {
            root: root.to_path_buf(),
            maps: Vec::new(),
            loaded: HashMap::new(),
        }
    }

    /// `ROOT/dir/app.js` with `text`, and its map `app.js.map` (`columns`, source `dir/src.js`).
    fn bundle(&self, dir: &str, text: &str, columns: &[u32], debug_id: Option<&str>) -> PathBuf {
        let folder = self.root.join(dir);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("app.js.map"),
            map_at(&format!("{dir}/src.js"), columns, debug_id),
        )
        .unwrap();
        std::fs::write(
            folder.join("app.js"),
            format!("{text}\n//# sourceMappingURL=app.js.map\n"),
        )
        .unwrap();
        folder.join("app.js")
    }

    fn load_map(&mut self, path: &Path) -> usize {
        let index = SourceMapIndex::from_bytes(std::fs::read(path).unwrap()).unwrap();
        self.maps.push(index);
        self.maps.len() - 1
    }
}

impl Place for DiskMemo {
    type Map = usize;

    fn roots(&self) -> Vec<PathBuf> {
        vec![self.root.clone()]
    }

    fn named(&mut self, name: &str) -> Vec<PathBuf> {
        crate::fs::walk::find_files_named(&self.root, name, SEARCH_DEPTH, MAX_SAME_NAMED)
    }

    fn own_map(&mut self, bundle: &Path) -> Option<usize> {
        let map = bundle.with_extension("js.map");
        if !map.is_file() {
            return None;
        }
        if let Some(&i) = self.loaded.get(&map) {
            return Some(i);
        }
        let i = self.load_map(&map);
        self.loaded.insert(map, i);
        Some(i)
    }

    fn text(&mut self, bundle: &Path) -> Option<BundleText> {
        Some(Box::new(std::fs::read(bundle).ok()?))
    }

    fn index<'a>(&'a self, map: &'a usize) -> &'a SourceMapIndex {
        &self.maps[*map]
    }

    fn same_map(&self, a: &usize, b: &usize) -> bool {
        a == b
    }
}

/// The source each frame of `trace` is answered from (`None`: not answered), and the files left ambiguous.
fn answer(
    place: &mut DiskMemo,
    trace: &str,
    given: &[GivenMap<usize>],
    chosen: &[(&str, PathBuf)],
) -> (Vec<Option<String>>, Vec<AmbiguousFile>) {
    let lines = parse_stack(trace, PlainInput::default());
    let frames: Vec<&StackFrame> = lines.iter().filter_map(StackLine::frame).collect();
    let chosen: HashMap<String, PathBuf> = chosen
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let debug_ids = crate::trace::stack::debug_ids_in(trace);
    let asked = Asked {
        given,
        chosen: &chosen,
        debug_ids: &debug_ids,
        no_file: given.first().map(|g| g.map),
        reported: &HashMap::new(),
    };
    let resolved = choose_maps(place, &frames, &asked);
    let sources = resolved
        .choices
        .iter()
        .zip(&frames)
        .map(|(c, f)| {
            let m = c.map()?;
            let hit = place.maps[*m].answer_at(f.generated?).ok()??.original?;
            hit.source_url.map(str::to_string)
        })
        .collect();
    (sources, resolved.ambiguous)
}

const CODE: &str = "var a=1;foo();bar();baz();qux();";

/// A report's copies of a bundle's lines, as Sentry's SDKs cut them, against the text.
#[test]
fn the_reports_lines_agree_or_not() {
    let text = b"var a=1;function f(){throw new Error(\"x\")}\r\n//# sourceMappingURL=app.js.map\n";
    type Case<'a> = (&'a [(u32, &'a str)], Option<u32>);
    let cases: [Case; 9] = [
        (&[(0, "var a=1;function f(){throw new Error(\"x\")}")], None),
        (
            &[(0, "  var a=1;function f(){throw new Error(\"x\")}  ")],
            None,
        ),
        (&[(0, "var a=1;function f() {snip}")], None),
        // @sentry/node 7's left cut: `'{snip} `.
        (&[(0, "'{snip} function f(){throw {snip}")], None),
        (&[(0, "var b=1;function f() {snip}")], Some(0)),
        (
            &[
                (1, "//# sourceMappingURL=app.js.map"),
                (0, "var a=1 {snip}"),
            ],
            None,
        ),
        (&[(1, "//# sourceMappingURL=other.js.map")], Some(1)),
        (&[(5, "anything")], Some(5)),
        (&[(0, ""), (1, "   ")], None),
    ];
    for (lines, expected) in cases {
        let lines: Vec<(u32, std::sync::Arc<str>)> =
            lines.iter().map(|(l, t)| (*l, (*t).into())).collect();
        assert_eq!(
            lines_disagree(text, &lines).map(|d| d.0),
            expected,
            "{lines:?}"
        );
    }
}

#[test]
fn same_named_builds_are_told_apart_by_where_the_frames_land() {
    let dir = tempfile::tempdir().unwrap();
    let mut disk = DiskMemo::new(dir.path());
    // Build `new` maps the calls (8 foo, 14 bar, 20 baz, 26 qux); build `old` is another build of the same
    // length, its segments elsewhere (inside identifiers of this text).
    disk.bundle("new", CODE, &[0, 8, 14, 20, 26], None);
    disk.bundle("old", CODE, &[0, 5, 10, 17, 23], None);
    // Five frames at the calls: the odds favour `new` far beyond DECISIVE.
    let trace = "Error\n    at f (app.js:1:9)\n    at g (app.js:1:15)\n    at h (app.js:1:21)\n    at i (app.js:1:27)\n    at j (app.js:1:9)\n";
    let (sources, ambiguous) = answer(&mut disk, trace, &[], &[]);
    assert!(ambiguous.is_empty(), "{ambiguous:?}");
    assert!(
        sources.iter().all(|s| s.as_deref() == Some("new/src.js")),
        "{sources:?}"
    );
    // One frame is not evidence enough: both could hold it, so it is left to the user, with both candidates.
    let (sources, ambiguous) = answer(&mut disk, "Error\n    at f (app.js:1:9)\n", &[], &[]);
    assert_eq!(sources, vec![None]);
    assert_eq!(ambiguous.len(), 1);
    assert_eq!(ambiguous[0].candidates.len(), 2);
    assert_eq!(ambiguous[0].file, "app.js");
    // The user's choice decides.
    let old = dir.path().join("old/app.js");
    let (sources, ambiguous) = answer(
        &mut disk,
        "Error\n    at f (app.js:1:9)\n",
        &[],
        &[("app.js", old)],
    );
    assert_eq!(
        (sources, ambiguous),
        (vec![Some("old/src.js".to_string())], vec![])
    );
}

#[test]
fn a_candidate_that_cannot_hold_the_positions_is_ruled_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut disk = DiskMemo::new(dir.path());
    disk.bundle("short", "foo();", &[0], None);
    disk.bundle("long", CODE, &[0, 8, 14, 20, 26], None);
    let (sources, ambiguous) = answer(&mut disk, "Error\n    at f (app.js:1:21)\n", &[], &[]);
    assert!(ambiguous.is_empty());
    assert_eq!(sources, vec![Some("long/src.js".to_string())]);
}

#[test]
fn the_reports_debug_id_and_the_path_choose() {
    let dir = tempfile::tempdir().unwrap();
    let mut disk = DiskMemo::new(dir.path());
    disk.bundle(
        "a",
        CODE,
        &[0, 8, 14, 20, 26],
        Some("85314830-023f-4cf1-a267-535f4e37bb17"),
    );
    disk.bundle(
        "b",
        CODE,
        &[0, 8, 14, 20, 26],
        Some("9c4a0ef1-0000-4cf1-a267-535f4e37bb17"),
    );
    let trace = "Error\n    at f (app.js:1:9)\ndebug_id: 9C4A0EF1-0000-4CF1-A267-535F4E37BB17\n";
    let (sources, _) = answer(&mut disk, trace, &[], &[]);
    assert_eq!(sources, vec![Some("b/src.js".to_string())]);
    // A URL's path under the root names the bundle, whatever the same-named others.
    let (sources, ambiguous) = answer(
        &mut disk,
        "Error\n    at f (https://cdn.example.com/a/app.js:1:9)\n",
        &[],
        &[],
    );
    assert_eq!(
        (sources, ambiguous),
        (vec![Some("a/src.js".to_string())], vec![])
    );
    // The same build in two folders answers as one (the nearest).
    let dir = tempfile::tempdir().unwrap();
    let mut disk = DiskMemo::new(dir.path());
    disk.bundle("x", CODE, &[0, 8, 14, 20, 26], None);
    let copy = dir.path().join("y/deeper");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["app.js", "app.js.map"] {
        std::fs::copy(dir.path().join("x").join(f), copy.join(f)).unwrap();
    }
    let (sources, ambiguous) = answer(&mut disk, "Error\n    at f (app.js:1:9)\n", &[], &[]);
    assert_eq!(
        (sources, ambiguous),
        (vec![Some("x/src.js".to_string())], vec![])
    );
}

#[test]
fn a_given_map_serves_where_no_bundle_of_its_own_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut disk = DiskMemo::new(dir.path());
    let map = dir.path().join("given.js.map");
    std::fs::write(&map, map_at("given/src.js", &[0, 8], None)).unwrap();
    let m = disk.load_map(&map);
    let given = [GivenMap {
        map: m,
        names: vec!["given.js".into()],
        bundle: None,
    }];
    // No bundle named other.js anywhere: the one map given serves (metro-symbolicate's rule), as it does frames
    // that name no file.
    let (sources, _) = answer(&mut disk, "Error\n    at f (other.js:1:9)\n", &given, &[]);
    assert_eq!(sources, vec![Some("given/src.js".to_string())]);
    // But not when the trace shows the map is another file's: it names given.js, which other frames are in.
    let (sources, _) = answer(
        &mut disk,
        "Error\n    at f (other.js:1:9)\n    at g (given.js:1:9)\n",
        &given,
        &[],
    );
    assert_eq!(sources, vec![None, Some("given/src.js".to_string())]);
    // Nor a frame whose file is at hand, has no map and does not fit the map given (the user's own script).
    std::fs::write(
        dir.path().join("mine.js"),
        "console.log(1);\nthrow new Error('x');\n",
    )
    .unwrap();
    let mine = dir.path().join("mine.js").display().to_string();
    let (sources, _) = answer(
        &mut disk,
        &format!("Error\n    at f ({mine}:1:9)\n"),
        &given,
        &[],
    );
    assert_eq!(sources, vec![None]);
    // A bundle of the frame's name with a map of its own answers from that map, not from the given one.
    disk.bundle("own", CODE, &[0, 8, 14, 20, 26], None);
    let (sources, _) = answer(&mut disk, "Error\n    at f (app.js:1:9)\n", &given, &[]);
    assert_eq!(sources, vec![Some("own/src.js".to_string())]);
    // Engine frames are never answered.
    let (sources, _) = answer(
        &mut disk,
        "Error\n    at f (node:internal/x:1:9)\n",
        &given,
        &[],
    );
    assert_eq!(sources, vec![None]);
}

/// The policy's reasons name no front end's flags: a place without words of its own says what to do plainly, and the
/// command line's words are its flags, as its messages always were.
#[test]
fn hints_name_flags_only_in_the_command_lines_words() {
    let hints = [
        Hint::GiveMapOrRoot,
        Hint::ChooseBundle {
            name: "app.js".into(),
        },
        Hint::ChosenBundle,
        Hint::GiveBuildFolder,
        Hint::ChooseThisBundle {
            name: "app.js".into(),
            bundle: "dist/app.js".into(),
        },
        Hint::NameBundle {
            name: "app.js".into(),
        },
        Hint::SearchWhereBundlesAre,
        Hint::NarrowTheSearch,
    ];
    for h in &hints {
        assert!(!h.plain().contains("--"), "{h:?}: {}", h.plain());
    }
    assert_eq!(
        hints.map(|h| h.as_flags()),
        [
            "give its map, or --root",
            "choose one (--bundle app.js=PATH)",
            "--bundle",
            "give --root the folder of the development build",
            "--bundle app.js=dist/app.js",
            "--bundle app.js=PATH",
            "give --root to search where the bundles are",
            "--root narrows it",
        ]
    );
}
