//! Crash pipelines: `symbolicate --ndjson`, a stream of events, against real crash traces. The round-trip corpus's
//! bundled traces (real npm libraries crashed under node from bundles made by esbuild, terser, swc, webpack 5 and
//! Rollup; `fixtures/roundtrip`) become the events a pipeline carries: Sentry events whose frames name the bundles by
//! URL (`https://cdn.example.com/BUNDLER/FILE.js`, found by URL path under `--maps dist`) and pino log lines with the
//! trace as node printed it; between them, lines that are no event. One bundle's map and text carry a debug ID,
//! written the way `sentry-cli sourcemaps inject` writes it (the map's `debugId`, the bundle's `//# debugId=`), and
//! its events name it in `debug_meta`, with a URL under which nothing lies: the map is found by its ID alone.
//!
//! Asserted: one line out per line in, in order; lines that are no event come out byte for byte; `--jobs 1` and
//! `--jobs 2` write the same bytes; each event comes out as `symbolicate --maps` gives it for that event alone (the
//! same JSON, the same line); the frames are mapped, the Sentry events' as Sentry stores them.

#[path = "support/process.rs"]
mod process;
#[path = "support/redis_server.rs"]
mod redis_server;
#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;
#[path = "support/sentry_event.rs"]
mod sentry_event;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use process::output_with_stdin;
use redis_server::Redis;
use sentry_event::sentry_event;
use serde_json::{json, Value};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
}

struct Stream {
    input: String,
    /// Input lines that are no event (they must come out unchanged).
    passed: Vec<usize>,
    /// Input lines that are events (compared with `symbolicate` of each alone).
    events: Vec<usize>,
}

/// The stream: each case as a Sentry event or a pino line, in turn, a line that is no event every seventh.
fn stream(dist: &Path, debug_id_bundle: &str, debug_id: &str) -> Stream {
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("cases.json")).unwrap()).unwrap();
    let not_events = [
        "GET /health 200 3ms".to_string(),
        json!({"level": 30, "msg": "listening", "port": 8080}).to_string(),
        "{\"exception\": {\"values\": [".to_string(),
        "\u{1b}[31mError\u{1b}[0m not json either".to_string(),
    ];
    let prefix = format!("{}/", dist.display());
    let mut lines = Vec::new();
    let (mut passed, mut events) = (Vec::new(), Vec::new());
    for (i, case) in cases["cases"].as_array().unwrap().iter().enumerate() {
        if i % 7 == 3 {
            passed.push(lines.len());
            lines.push(not_events[(i / 7) % not_events.len()].clone());
        }
        let trace = case["bundled"].as_str().unwrap();
        events.push(lines.len());
        let names_debug_id = trace.contains(debug_id_bundle);
        if names_debug_id {
            // Served from a path nothing lies under: only the debug ID finds the map.
            let mut event = sentry_event(i, trace, &prefix, "https://cdn.example.com/v2");
            let file = format!("https://cdn.example.com/v2/{debug_id_bundle}");
            event["debug_meta"] =
                json!({"images": [{"type": "sourcemap", "code_file": file, "debug_id": debug_id}]});
            lines.push(event.to_string());
        } else if i % 2 == 0 {
            lines.push(sentry_event(i, trace, &prefix, "https://cdn.example.com").to_string());
        } else {
            let log = json!({"level": 50, "time": 1_700_000_000_000u64 + i as u64, "err": {"type": "TypeError", "stack": trace}, "msg": "crash"});
            lines.push(log.to_string());
        }
    }
    Stream {
        input: lines.join("\n") + "\n",
        passed,
        events,
    }
}

/// The round-trip corpus's maps with one bundle found by its debug ID alone (`with_debug_id`), and the stream of its
/// crashes.
fn maps_and_stream() -> (tempfile::TempDir, Stream) {
    let dist = roundtrip_build::built();
    let id = "9c4a0ef1-51d2-4cf1-a267-535f4e37bb17";
    let bundle = "esbuild/lodash-scenarios.js";
    let maps = tempfile::tempdir().unwrap();
    with_debug_id(&dist, maps.path(), bundle, id);
    let s = stream(&dist, bundle, id);
    (maps, s)
}

/// A copy of `dist` where one bundle and its map carry a debug ID (`sentry-cli sourcemaps inject`'s form), the
/// bundle renamed so that no URL path leads to it.
fn with_debug_id(dist: &Path, out: &Path, bundle: &str, id: &str) {
    for entry in walk(dist) {
        let rel = entry.strip_prefix(dist).unwrap();
        let to = out.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    let map_path = out.join(format!("{bundle}.map"));
    let mut map: Value = serde_json::from_slice(&std::fs::read(&map_path).unwrap()).unwrap();
    map["debugId"] = json!(id);
    let (dir, name) = bundle.rsplit_once('/').unwrap();
    let renamed = format!("{dir}/{}.{}.js", name.trim_end_matches(".js"), &id[..8]);
    std::fs::write(
        out.join(format!("{renamed}.map")),
        serde_json::to_vec(&map).unwrap(),
    )
    .unwrap();
    let text = std::fs::read_to_string(out.join(bundle)).unwrap();
    let text = text.replace(
        &format!("//# sourceMappingURL={name}.map"),
        &format!(
            "//# debugId={id}\n//# sourceMappingURL={}.{}.js.map",
            name.trim_end_matches(".js"),
            &id[..8]
        ),
    );
    std::fs::write(out.join(&renamed), text).unwrap();
    std::fs::remove_file(out.join(bundle)).unwrap();
    std::fs::remove_file(map_path).unwrap();
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|e| e == "js" || e == "map") {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_stream_of_real_events_comes_back_in_order_as_each_alone() {
    let (maps, s) = maps_and_stream();
    let run = |jobs: &str| {
        let out = output_with_stdin(
            bin()
                .args(["symbolicate", "--ndjson", "--jobs", jobs, "--maps"])
                .arg(maps.path())
                .args(["--cache-mb", "64"]),
            &s.input,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (out.stdout, String::from_utf8(out.stderr).unwrap())
    };
    let (one, said) = run("1");
    let (two, _) = run("2");
    assert!(one == two, "--jobs 1 and --jobs 2 differ");
    let input: Vec<&str> = s.input.lines().collect();
    let output: Vec<&str> = std::str::from_utf8(&one).unwrap().lines().collect();
    assert_eq!(output.len(), input.len(), "one line out per line in");
    for &i in &s.passed {
        assert_eq!(
            output[i],
            input[i],
            "line {}: not an event, unchanged",
            i + 1
        );
    }
    assert!(said.contains("passed through"), "{said}");
    // Every event as `symbolicate` gives it alone (every third: each is a process of its own).
    let (mut frames, mut mapped) = (0, 0);
    for &i in s.events.iter().step_by(3) {
        let alone = output_with_stdin(
            bin().args(["symbolicate", "--maps"]).arg(maps.path()),
            input[i],
        );
        let alone = String::from_utf8(alone.stdout).unwrap();
        let (got, want) = (output[i], alone.trim_end_matches('\n'));
        match (
            serde_json::from_str::<Value>(got),
            serde_json::from_str::<Value>(want),
        ) {
            (Ok(g), Ok(w)) if g.get("exception").is_some() => {
                assert_eq!(
                    g,
                    w,
                    "line {}: the event differs from its answer alone",
                    i + 1
                )
            }
            _ => assert_eq!(got, want, "line {}: differs from its answer alone", i + 1),
        }
    }
    // The Sentry events' frames: mapped, each as Sentry stores it.
    for &i in &s.events {
        let Ok(event) = serde_json::from_str::<Value>(output[i]) else {
            continue;
        };
        let Some(values) = event.pointer("/exception/values/0") else {
            continue;
        };
        for f in values["stacktrace"]["frames"].as_array().unwrap() {
            frames += 1;
            if f["data"]["symbolicated"] == json!(true) {
                mapped += 1;
                assert!(f["lineno"].as_u64().unwrap() >= 1);
            }
        }
        assert_eq!(
            values["raw_stacktrace"]["frames"].as_array().map(Vec::len),
            values["stacktrace"]["frames"].as_array().map(Vec::len),
            "line {}: the frames as sent are kept",
            i + 1
        );
        if input[i].contains("debug_meta") {
            let top = values["stacktrace"]["frames"]
                .as_array()
                .unwrap()
                .last()
                .unwrap();
            assert_eq!(
                top["data"]["symbolicated"],
                json!(true),
                "line {}: by debug ID",
                i + 1
            );
            assert!(
                top["abs_path"]
                    .as_str()
                    .unwrap()
                    .contains("lodash-scenarios"),
                "{top}"
            );
        }
    }
    assert!(
        mapped * 100 >= frames * 95,
        "{mapped} of {frames} frames mapped"
    );
}

/// A crash seen again (another event with the same frames, `release`, `dist`, `debug_meta` and debug IDs: only its
/// own members differ) is written with the first one's answers (`event_answers`): the same bytes as answering it in
/// full. An event that differs in what answers are made of (its debug ID left out, a frame's column moved) is
/// answered anew: as `symbolicate` answers it alone.
#[test]
fn a_crash_seen_again_is_answered_as_the_first_and_a_changed_one_anew() {
    let (maps, s) = maps_and_stream();
    let lines: Vec<&str> = s.input.lines().collect();
    let first: Vec<&str> = s
        .events
        .iter()
        .map(|&i| lines[i])
        .filter(|l| l.contains("\"exception\""))
        .collect();
    // Seen again: a member of its own first (as an event's id, time and breadcrumbs are its own).
    let again = |k: usize, l: &str| format!("{{\"seen_again\":{k},{}", &l[1..]);
    let mut changed = Vec::new();
    let with_id = first.iter().find(|l| l.contains("debug_meta")).unwrap();
    let mut v: Value = serde_json::from_str(with_id).unwrap();
    v.as_object_mut().unwrap().remove("debug_meta");
    changed.push(v.to_string());
    for l in first.iter().filter(|l| !l.contains("debug_meta")).take(4) {
        let mut v: Value = serde_json::from_str(l).unwrap();
        let colno = v
            .pointer_mut("/exception/values/0/stacktrace/frames/0/colno")
            .unwrap();
        *colno = json!(colno.as_u64().unwrap() + 1);
        changed.push(v.to_string());
    }
    let mut input: Vec<String> = first.iter().map(|l| l.to_string()).collect();
    input.extend(first.iter().enumerate().map(|(k, l)| again(k, l)));
    input.extend(changed.iter().cloned());
    let input = input.join("\n") + "\n";
    let run = |jobs: &str| {
        let out = output_with_stdin(
            bin()
                .args(["symbolicate", "--ndjson", "--jobs", jobs, "--maps"])
                .arg(maps.path()),
            &input,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let out = run("1");
    assert!(out == run("2"), "--jobs 1 and --jobs 2 differ");
    let out: Vec<&str> = out.lines().collect();
    let n = first.len();
    assert!(n >= 10, "{n} Sentry events");
    for k in 0..n {
        assert_eq!(out[n + k], again(k, out[k]), "event {k} seen again");
    }
    for (c, line) in changed.iter().enumerate() {
        let alone = output_with_stdin(bin().args(["symbolicate", "--maps"]).arg(maps.path()), line);
        let alone: Value = serde_json::from_slice(&alone.stdout).unwrap();
        let got: Value = serde_json::from_str(out[2 * n + c]).unwrap();
        assert_eq!(got, alone, "changed event {c}: as answered alone");
    }
    // The event without its debug ID: its top frame's bundle lies under no URL path, so it is not mapped now.
    let top = |l: &str| {
        let v: Value = serde_json::from_str(l).unwrap();
        let frames = v["exception"]["values"][0]["stacktrace"]["frames"].clone();
        frames.as_array().unwrap().last().unwrap()["data"]["symbolicated"].clone()
    };
    let k = first.iter().position(|l| l == with_id).unwrap();
    assert_eq!((top(out[k]), top(out[2 * n])), (json!(true), Value::Null));
}

/// Distinct events whose frames recur (issue 66), of real libraries' bundles: each Sentry event again without each of
/// its frames in turn, and with its frames' names left out. The stream, answering frames from the answers it keeps
/// (`KeptFrames`, `KeptObjects`), writes the same bytes as a run that keeps no answer (`--cache-mb 0`).
#[test]
fn distinct_events_of_real_bundles_are_answered_as_without_keeping() {
    let (maps, s) = maps_and_stream();
    let lines: Vec<&str> = s.input.lines().collect();
    let mut input = String::new();
    for &i in &s.events {
        let Ok(event) = serde_json::from_str::<Value>(lines[i]) else {
            continue;
        };
        let Some(n) = event
            .pointer("/exception/values/0/stacktrace/frames")
            .and_then(Value::as_array)
            .map(Vec::len)
        else {
            continue;
        };
        for k in 0..=n {
            let mut e = event.clone();
            let frames = e
                .pointer_mut("/exception/values/0/stacktrace/frames")
                .and_then(Value::as_array_mut)
                .unwrap();
            match k < n {
                true => drop(frames.remove(k)),
                false => frames
                    .iter_mut()
                    .filter_map(Value::as_object_mut)
                    .for_each(|f| drop(f.remove("function"))),
            }
            input.push_str(&e.to_string());
            input.push('\n');
        }
    }
    let run = |args: &[&str], input: &str| {
        let out = output_with_stdin(
            bin()
                .args(["symbolicate", "--ndjson", "--maps"])
                .arg(maps.path())
                .args(args),
            input,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let kept = run(&["--jobs", "2"], &input);
    let answered = kept.matches("\"symbolicated\":true").count();
    assert!(answered >= 5000, "{answered} frames answered");
    // Without keeping, each event is answered alone (every map read and parsed again: two minutes for all of them),
    // so every thirteenth, each answered after the others of the stream above, is enough.
    let every: Vec<usize> = (0..input.lines().count()).step_by(13).collect();
    let some: String = every
        .iter()
        .map(|&k| format!("{}\n", input.lines().nth(k).unwrap()))
        .collect();
    let without = run(&["--jobs", "1", "--cache-mb", "0"], &some);
    let kept: Vec<&str> = kept.lines().collect();
    assert_eq!(without.lines().count(), every.len());
    for (&k, b) in every.iter().zip(without.lines()) {
        assert_eq!(kept[k], b, "event {k}: kept answers and none differ");
    }
}

/// A stream's entries: (ID, field → value).
fn entries(c: &mut redis::Connection, stream: &str) -> Vec<(String, HashMap<String, String>)> {
    redis::cmd("XRANGE")
        .arg(stream)
        .arg("-")
        .arg("+")
        .query(c)
        .unwrap()
}

/// Two workers on one stream of real events, one killed with SIGKILL mid-stream: at the end every input has its
/// output (the same event as `symbolicate --ndjson` gives), the dead letters are exactly the malformed inputs,
/// nothing is pending, and the living worker stops on SIGTERM with exit 0.
#[test]
fn two_workers_share_a_stream_and_one_dies() {
    let (maps, s) = maps_and_stream();
    let lines: Vec<&str> = s.input.lines().collect();
    let events: Vec<&str> = s.events.iter().map(|&i| lines[i]).collect();
    // What each event becomes alone in a stream (the first test holds that to `symbolicate` of each alone).
    let want = output_with_stdin(
        bin()
            .args(["symbolicate", "--ndjson", "--maps"])
            .arg(maps.path()),
        &(events.join("\n") + "\n"),
    );
    let want: Vec<Value> = std::str::from_utf8(&want.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(want.len(), events.len());

    let redis = Redis::start();
    let mut c = redis.connection();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut malformed = std::collections::BTreeSet::new();
    for (k, event) in events.iter().enumerate() {
        let id: String = redis::cmd("XADD")
            .arg("in")
            .arg("*")
            .arg("event")
            .arg(*event)
            .query(&mut c)
            .unwrap();
        by_id.insert(id, k);
        if k % 40 == 7 {
            // An entry with no event, and one whose event is not JSON.
            let none: String = redis::cmd("XADD")
                .arg("in")
                .arg("*")
                .arg("message")
                .arg("hello")
                .query(&mut c)
                .unwrap();
            let text: String = redis::cmd("XADD")
                .arg("in")
                .arg("*")
                .arg("event")
                .arg("TypeError: x\n    at f (app.js:1:2)")
                .query(&mut c)
                .unwrap();
            malformed.insert(none);
            malformed.insert(text);
        }
    }
    let worker = |name: &str| {
        bin()
            .args([
                "worker",
                "--redis",
                &redis.url,
                "--stream",
                "in",
                "--group",
                "symbolicators",
            ])
            .args([
                "--consumer",
                name,
                "--output",
                "out",
                "--dead-letter",
                "dead",
            ])
            .args(["--jobs", "1", "--claim-idle-ms", "4000", "--maps"])
            .arg(maps.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut a = worker("a");
    let mut b = worker("b");
    let started = std::time::Instant::now();
    let len =
        |c: &mut redis::Connection, s: &str| redis::cmd("XLEN").arg(s).query::<usize>(c).unwrap();
    while len(&mut c, "out") < 10 {
        assert!(started.elapsed().as_secs() < 240, "no output");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let clients = |c: &mut redis::Connection| {
        redis::cmd("CLIENT")
            .arg("LIST")
            .query::<String>(c)
            .unwrap()
            .lines()
            .count()
    };
    let before = clients(&mut c);
    a.kill().unwrap();
    a.wait().unwrap();
    // Commands the dead worker sent before it died (an XACK) may still be in its socket: Redis runs them before it
    // sees the connection close, so the dead worker's pending entries are read once its connection is gone.
    while clients(&mut c) >= before {
        assert!(
            started.elapsed().as_secs() < 240,
            "the dead worker's connection stays open"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // What the dead worker had taken and not acknowledged: the living one must claim what the dead one was the first
    // to take. (An entry it had claimed itself from the living one, whose batch outlasted the idle time, the living
    // one may finish and acknowledge without claiming it back: at least once, twice here. A debug build's batch of 16
    // events took 2.2 s, hence an idle time of 4 s.)
    let left: Vec<redis::Value> = redis::cmd("XPENDING")
        .arg("in")
        .arg("symbolicators")
        .arg("-")
        .arg("+")
        .arg(1000)
        .arg("a")
        .query(&mut c)
        .unwrap();
    // Until every input has its answer and nothing is pending.
    let pending = |c: &mut redis::Connection| -> u64 {
        let summary: Vec<redis::Value> = redis::cmd("XPENDING")
            .arg("in")
            .arg("symbolicators")
            .query(c)
            .unwrap();
        match summary.first() {
            Some(redis::Value::Int(n)) => *n as u64,
            _ => 0,
        }
    };
    loop {
        let out: std::collections::HashSet<String> = entries(&mut c, "out")
            .into_iter()
            .map(|(_, f)| f["source_id"].clone())
            .collect();
        let dead = len(&mut c, "dead");
        if out.len() + dead >= events.len() + malformed.len() && pending(&mut c) == 0 {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 300,
            "{} outputs, {dead} dead letters, of {} inputs",
            out.len(),
            events.len() + malformed.len()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // SIGTERM: the living worker finishes and exits 0.
    unsafe { libc::kill(b.id() as i32, libc::SIGTERM) };
    let status = b.wait().unwrap();
    let mut said = String::new();
    std::io::Read::read_to_string(b.stderr.as_mut().unwrap(), &mut said).unwrap();
    assert!(
        status.success(),
        "the worker exits 0 on SIGTERM: {status:?}\n{said}"
    );
    let claimed: usize = said
        .rsplit_once("events done, ")
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok())
        .expect("the worker's last line");
    // XPENDING's rows: [id, consumer, idle ms, deliveries].
    let first_taken = left
        .iter()
        .filter(
            |row| matches!(row, redis::Value::Array(f) if f.get(3) == Some(&redis::Value::Int(1))),
        )
        .count();
    assert!(
        claimed >= first_taken,
        "{first_taken} entries first taken by the dead worker left pending, {claimed} claimed:\n{said}"
    );
    eprintln!(
        "the killed worker left {} entries pending; the living one claimed {claimed}",
        left.len()
    );

    // Every event's output (a repeat, delivery being at least once, is the same), each as the stream gives it.
    let mut answered = std::collections::HashSet::new();
    for (_, fields) in entries(&mut c, "out") {
        let source = &fields["source_id"];
        let k = by_id[source];
        let got: Value = serde_json::from_str(&fields["event"]).unwrap();
        assert_eq!(
            got, want[k],
            "entry {source}: not what the event gives alone"
        );
        answered.insert(source.clone());
    }
    assert_eq!(answered.len(), events.len(), "every event has its output");
    let dead: std::collections::BTreeSet<String> = entries(&mut c, "dead")
        .into_iter()
        .map(|(_, f)| {
            assert!(!f["reason"].is_empty());
            f["source_id"].clone()
        })
        .collect();
    assert_eq!(
        dead, malformed,
        "the dead letters are the malformed entries"
    );
    assert_eq!(pending(&mut c), 0, "nothing pending");
}

/// SIGHUP scans the folders of maps again: an event whose map was not there is answered once the map is added and
/// the signal sent, by the same process.
#[test]
fn sighup_scans_the_folders_of_maps_again() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/dist");
    let event = json!({"exception": {"values": [{"stacktrace": {"frames": [
        {"abs_path": "https://shop.example.com/app.min.js", "lineno": 1, "colno": 51}]}}]}})
    .to_string();
    let mut child = bin()
        .args(["symbolicate", "--ndjson", "--jobs", "1", "--maps"])
        .arg(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut answer = |input: &mut std::process::ChildStdin| {
        writeln!(input, "{event}").unwrap();
        input.flush().unwrap();
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    };
    let before = answer(&mut input);
    assert_eq!(
        before.pointer("/exception/values/0/stacktrace/frames/0/lineno"),
        Some(&json!(1)),
        "no map yet: {before}"
    );
    for f in ["app.min.js", "app.min.js.map"] {
        std::fs::copy(demo.join(f), dir.path().join(f)).unwrap();
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let after = answer(&mut input);
    let top = after
        .pointer("/exception/values/0/stacktrace/frames/0")
        .unwrap();
    assert_eq!(
        (&top["function"], &top["lineno"]),
        (&json!("parseOrder"), &json!(5)),
        "{after}"
    );
    drop(input);
    assert!(child.wait().unwrap().success());
}
