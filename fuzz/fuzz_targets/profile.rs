//! Profiles: any bytes read as a Hermes sampling profile, a V8 `.cpuprofile` and a Chrome trace (each reader, not
//! only the one `detect` picks), then summarised by function with made-up origins, written back in the format and
//! converted to a `.cpuprofile`: an error or an answer, never a panic or a hang (parent loops, unknown ids). A Hermes
//! profile written back without rewrites is its input, byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sourcemap_core::profile::chrome_trace::ChromeTraceDoc;
use sourcemap_core::profile::cpuprofile::{self, CpuProfileDoc};
use sourcemap_core::profile::hermes::HermesDoc;
use sourcemap_core::profile::sites::Sites;
use sourcemap_core::profile::summary::{summarize, FrameOrigin, GroupBy};
use sourcemap_core::profile::{Profile, Rewrite, Rewrites};

fn exercise(profile: &Profile, write: impl Fn(&Rewrites, &mut Vec<u8>)) {
    let sites = Sites::of(profile);
    let origins: Vec<Option<FrameOrigin>> = sites
        .pairs
        .iter()
        .enumerate()
        .map(|(i, &(own, _))| {
            (i % 5 != 4).then(|| FrameOrigin {
                function: (i % 3 != 0).then(|| format!("f{}", own % 5)),
                top_level: i % 7 == 0,
                source: format!("src/{}.js", own % 3),
                line: own as u32,
                package: "src".into(),
            })
        })
        .collect();
    for by in [GroupBy::Function, GroupBy::File, GroupBy::Package] {
        let rows = summarize(profile, &sites.by_frame, &origins, by);
        let self_sum: f64 = rows.iter().map(|r| r.self_us).sum();
        if profile.total_us.is_finite() {
            assert!((self_sum - profile.total_us).abs() <= 1e-6 * profile.total_us.abs().max(1.0));
        }
    }
    let table: Vec<Option<Rewrite>> = origins
        .iter()
        .map(|o| {
            o.as_ref().map(|o| Rewrite {
                function: o.function.clone(),
                source: o.source.clone(),
                line: o.line,
                column: 0,
            })
        })
        .collect();
    let rewrites = Rewrites::new(&sites.by_frame, table);
    let mut out = Vec::new();
    write(&rewrites, &mut out);
    let mut converted = Vec::new();
    cpuprofile::write_from(profile, &rewrites, &mut converted).unwrap();
    let again = cpuprofile::read(&converted).expect("a converted profile reads back");
    assert_eq!(again.samples, profile.samples);
}

fuzz_target!(|data: &[u8]| {
    if let Ok((doc, p)) = HermesDoc::parse(data) {
        // Nothing rewritten: the input, byte for byte; rewritten: a Hermes profile with the same frames.
        let mut same = Vec::new();
        doc.write(&Rewrites::per_frame(Vec::new()), &mut same)
            .unwrap();
        assert_eq!(same, data);
        exercise(&p, |r, out| {
            doc.write(r, out).unwrap();
            let (_, again) = HermesDoc::parse(out).expect("a written profile reads back");
            assert_eq!(again.frames.len(), p.frames.len());
            assert_eq!(again.samples, p.samples);
        });
    }
    if let Ok(doc) = CpuProfileDoc::parse(data) {
        let p = doc.profile();
        exercise(&p, |r, out| doc.write(r, out).unwrap());
    }
    if let Ok(doc) = ChromeTraceDoc::parse(data) {
        let p = doc.profile();
        exercise(&p, |r, out| doc.write(r, out).unwrap());
    }
    let _ = sourcemap_core::profile::read(data);
});
