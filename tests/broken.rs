//! Broken and hostile maps through the real binary: each case must end in exit 1 with a clear, located message —
//! never a panic, never a hang — and the valid-but-extreme ones must stay bounded.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run sourcemap-ls")
}

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

/// (case, map bytes, a substring the error must contain)
fn cases() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let mut non_utf8 = br#"{"version":3,"sources":["a.js"],"names":["#.to_vec();
    non_utf8.extend_from_slice(b"\"\xff\xfe\"");
    non_utf8.extend_from_slice(br#"],"mappings":"AAAA"}"#);
    vec![
        ("truncated JSON", br#"{"version":3,"sources":["a.js"],"mapp"#.to_vec(), "ends too early"),
        ("not an object", b"[1,2,3]".to_vec(), "must be a JSON object"),
        ("empty file", b"".to_vec(), "ends too early"),
        ("version as string", br#"{"version":"3","sources":[],"mappings":""}"#.to_vec(), "version"),
        ("sources not a list", br#"{"version":3,"sources":"a.js","mappings":""}"#.to_vec(), "`sources` must be an array"),
        ("a source of the wrong type", br#"{"version":3,"sources":[1],"mappings":""}"#.to_vec(), "sources[0]"),
        ("names of the wrong type", br#"{"version":3,"sources":[],"names":[{}],"mappings":""}"#.to_vec(), "names[0]"),
        ("mappings of the wrong type", br#"{"version":3,"sources":[],"mappings":[]}"#.to_vec(), "`mappings` must be a string"),
        ("sourcesContent of the wrong type", br#"{"version":3,"sources":["a"],"sourcesContent":[7],"mappings":""}"#.to_vec(), "sourcesContent[0]"),
        ("ignoreList beyond 2^31", br#"{"version":3,"sources":["a"],"ignoreList":[2147483648],"mappings":""}"#.to_vec(), "too large"),
        ("offset beyond 2^53", br#"{"version":3,"sections":[{"offset":{"line":9007199254740993,"column":0},"map":{"version":3,"sources":[],"mappings":""}}]}"#.to_vec(), "offset.line"),
        ("a float offset", br#"{"version":3,"sections":[{"offset":{"line":1.5,"column":0},"map":{"version":3,"sources":[],"mappings":""}}]}"#.to_vec(), "offset.line"),
        ("VLQ over 32 bits", br#"{"version":3,"sources":["a"],"mappings":"ggggggE"}"#.to_vec(), "does not fit in 32 bits"),
        ("VLQ with a huge digit run", format!(r#"{{"version":3,"sources":["a"],"mappings":"{}"}}"#, "/".repeat(10_000)).into_bytes(), "mappings"),
        ("invalid base64", br#"{"version":3,"sources":["a"],"mappings":"AA~A"}"#.to_vec(), "'~'"),
        // Metro nests index maps (RAM bundles); nested sections must still end where the next section starts.
        ("nested sections past the next section", br#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sections":[{"offset":{"line":5,"column":0},"map":{"version":3,"sources":[],"mappings":""}}]}},{"offset":{"line":2,"column":0},"map":{"version":3,"sources":[],"mappings":""}}]}"#.to_vec(), "nested sections reach"),
        ("url sections", br#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"url":"other.map"}]}"#.to_vec(), "not supported"),
        ("non-UTF-8 bytes", non_utf8, "invalid"),
        ("deeply nested JSON", deep.into_bytes(), "JSON"),
    ]
}

#[test]
fn every_broken_map_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, (case, bytes, want)) in cases().into_iter().enumerate() {
        let path = write(dir.path(), &format!("case{i}.map"), &bytes);
        for sub in [
            vec!["validate", path.as_str()],
            vec!["lookup", path.as_str(), "1:0"],
            vec!["stats", path.as_str()],
        ] {
            let o = run(&sub);
            let err = String::from_utf8_lossy(&o.stderr);
            if o.status.code() != Some(1) || !err.contains(want) || err.contains("panicked") {
                failures.push(format!(
                    "{case} / {}: exit {:?}, stderr: {}",
                    sub[0],
                    o.status.code(),
                    err.trim()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bad_data_urls_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (case, url, want) in [
        (
            "bad base64",
            "data:application/json;base64,%%%%",
            "invalid base64",
        ),
        (
            "no payload separator",
            "data:application/json;base64",
            "','",
        ),
        ("not JSON", "data:application/json;base64,aGVsbG8=", "JSON"),
    ] {
        let bundle = write(
            dir.path(),
            "b.js",
            format!("x;\n//# sourceMappingURL={url}\n").as_bytes(),
        );
        let o = run(&["validate", &bundle]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{case}: {err}");
        assert!(err.contains(want), "{case}: {err}");
    }
}

/// A 1 GiB `mappings` of `;` (a billion empty lines): valid, and the index holds nothing beyond the VLQ text.
#[test]
fn a_gigabyte_of_empty_lines_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.map");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        f.write_all(br#"{"version":3,"sources":["a.js"],"names":[],"mappings":""#)
            .unwrap();
        let chunk = vec![b';'; 1 << 20];
        for _ in 0..1024 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(b"AAAA\"}").unwrap();
    }
    let path = path.to_string_lossy().into_owned();
    let o = run(&["stats", "--json", &path]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["generatedLines"], (1u64 << 30) + 1);
    assert_eq!(s["segments"], 1);
    // The VLQ (1 GiB) plus one checkpoint: no per-line table.
    assert!(
        s["indexBytes"].as_u64().unwrap() - s["mappingsBytes"].as_u64().unwrap() < 1024,
        "{s}"
    );
    let o = run(&["lookup", &path, &format!("{}:0", (1u64 << 30) + 1)]);
    let out: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(out["source"], "a.js");
}
