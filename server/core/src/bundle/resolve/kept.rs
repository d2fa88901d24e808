//! Choices kept across sessions (issue 66): a pipeline's events are distinct, but the files their frames name recur
//! with the same evidence (the same library's frames in different crashes), and choosing a file's bundle and map
//! from the same evidence chooses the same.
//!
//! What [`Resolver::choose_frame`] chooses for a file, past the frame's own checks (native, no position, no file,
//! an engine's file), is a function of: the place (its roots and what it found on disk in this generation of its
//! store, what the input says of the file: [`Place::choice_key`]), the file as printed, the positions of the
//! report's frames in it that give a column, what the report says of it (its debug ID, its lines as copied:
//! [`ReportedFile`](crate::trace::document::ReportedFile)), the report's debug IDs, and whether it has Hermes
//! bytecode frames. Choices made with maps given or bundles chosen by the user also read the other files of the
//! report, and are never kept. The key writes each part whole (a length before each text), so two keys are equal
//! only when all parts are; a kept choice is given back only for an equal key, compared byte for byte.

use super::{Place, Resolver};
use crate::map::index::GeneratedPosition;
use crate::trace::symbolicate::key_text;

/// The key of the choice for `file`, its frames at `positions`, with the place's mark (see [`Place::choice_key`]);
/// `None` when the choice is not kept.
pub(super) fn choice_key<P: Place>(
    resolver: &Resolver<'_, '_, P>,
    file: &str,
    positions: &[GeneratedPosition],
) -> Option<(Vec<u8>, usize)> {
    let asked = resolver.asked;
    if !asked.given.is_empty() || !asked.chosen.is_empty() {
        return None;
    }
    let (mut key, mark) = resolver.place.choice_key(file)?;
    key_text(&mut key, Some(file));
    key.extend_from_slice(&(positions.len() as u64).to_le_bytes());
    for p in positions {
        key.extend_from_slice(&p.line.to_le_bytes());
        key.extend_from_slice(&p.column.to_le_bytes());
    }
    match asked.reported.get(file) {
        None => key.push(0),
        Some(reported) => {
            key.push(1);
            key_text(&mut key, reported.debug_id.as_deref());
            key.extend_from_slice(&(reported.lines.len() as u64).to_le_bytes());
            for (line, copy) in &reported.lines {
                key.extend_from_slice(&line.to_le_bytes());
                key_text(&mut key, Some(copy));
            }
        }
    }
    key.extend_from_slice(&(asked.debug_ids.len() as u64).to_le_bytes());
    for id in asked.debug_ids {
        key_text(&mut key, Some(id));
    }
    key.push(u8::from(resolver.bytecode_files.contains(file)));
    Some((key, mark))
}

#[cfg(test)]
mod tests {
    use super::super::{Asked, BundleText, GivenMap, Place, Resolver};
    use super::choice_key;
    use crate::map::index::{GeneratedPosition, SourceMapIndex};
    use crate::trace::document::ReportedFile;
    use std::collections::{HashMap, HashSet};
    use std::path::{Path, PathBuf};

    /// A place whose choices are kept, its part of the key `part`; nothing else is asked of it.
    struct Keeping {
        part: Vec<u8>,
    }

    impl Place for Keeping {
        type Map = usize;
        fn roots(&self) -> Vec<PathBuf> {
            unreachable!()
        }
        fn named(&mut self, _: &str) -> Vec<PathBuf> {
            unreachable!()
        }
        fn own_map(&mut self, _: &Path) -> Option<usize> {
            unreachable!()
        }
        fn text(&mut self, _: &Path) -> Option<BundleText> {
            unreachable!()
        }
        fn index<'a>(&'a self, _: &'a usize) -> &'a SourceMapIndex {
            unreachable!()
        }
        fn same_map(&self, a: &usize, b: &usize) -> bool {
            a == b
        }
        fn choice_key(&self, _file: &str) -> Option<(Vec<u8>, usize)> {
            Some((self.part.clone(), 7))
        }
    }

    /// What one choice is made from: the parts the key writes.
    #[derive(Clone)]
    struct Evidence {
        part: Vec<u8>,
        file: String,
        positions: Vec<GeneratedPosition>,
        reported: Option<ReportedFile>,
        debug_ids: Vec<String>,
        bytecode: bool,
        given: bool,
        chosen: bool,
    }

    fn key(e: &Evidence) -> Option<(Vec<u8>, usize)> {
        let mut place = Keeping {
            part: e.part.clone(),
        };
        let given = [GivenMap {
            map: 0usize,
            names: vec![],
            bundle: None,
        }];
        let mut chosen = HashMap::new();
        if e.chosen {
            chosen.insert("other.js".to_string(), PathBuf::from("/b/other.js"));
        }
        let mut reported = HashMap::new();
        if let Some(r) = &e.reported {
            reported.insert(e.file.clone(), r.clone());
        }
        let asked = Asked {
            given: if e.given { &given[..] } else { &[] },
            chosen: &chosen,
            debug_ids: &e.debug_ids,
            no_file: None,
            reported: &reported,
        };
        let resolver = Resolver {
            place: &mut place,
            trace_files: HashSet::new(),
            bytecode_files: if e.bytecode {
                HashSet::from([e.file.clone()])
            } else {
                HashSet::new()
            },
            asked: &asked,
            by_file: HashMap::new(),
            ambiguous: Vec::new(),
        };
        choice_key(&resolver, &e.file, &e.positions)
    }

    #[test]
    fn every_part_a_choice_reads_is_in_its_key() {
        let at = |line, column| GeneratedPosition { line, column };
        let base = Evidence {
            part: b"roots".to_vec(),
            file: "https://x.test/app.js".into(),
            positions: vec![at(0, 10), at(2, 4)],
            reported: Some(ReportedFile {
                debug_id: Some("id-1".into()),
                lines: vec![(0, "var a".into()), (2, "b()".into())],
            }),
            debug_ids: vec!["id-1".into()],
            bytecode: false,
            given: false,
            chosen: false,
        };
        let (k, mark) = key(&base).expect("kept");
        assert_eq!(mark, 7, "the place's mark comes back");
        assert_eq!(key(&base.clone()).unwrap().0, k, "one evidence, one key");
        let changed: Vec<fn(&mut Evidence)> = vec![
            |e| e.part = b"other roots".to_vec(),
            |e| e.file = "https://x.test/vendor.js".into(),
            |e| e.positions[0].column = 11,
            |e| e.positions[1].line = 3,
            |e| e.positions.truncate(1),
            |e| e.positions.reverse(),
            |e| e.reported = None,
            |e| e.reported.as_mut().unwrap().debug_id = None,
            |e| e.reported.as_mut().unwrap().debug_id = Some("id-2".into()),
            |e| e.reported.as_mut().unwrap().lines[1].0 = 3,
            |e| e.reported.as_mut().unwrap().lines[1].1 = "b ()".into(),
            |e| e.reported.as_mut().unwrap().lines.truncate(1),
            |e| e.debug_ids.clear(),
            |e| e.debug_ids.push("id-2".into()),
            |e| e.bytecode = true,
            // Texts that would run together without their lengths.
            |e| {
                e.part = b"root".to_vec();
                e.file = "shttps://x.test/app.js".into();
            },
            |e| {
                let r = e.reported.as_mut().unwrap();
                r.lines = vec![(0, "var a".into()), (2, "b()".into()), (4, "".into())];
            },
        ];
        let mut keys = vec![k];
        for change in changed {
            let mut e = base.clone();
            change(&mut e);
            keys.push(key(&e).expect("kept").0);
        }
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "every change makes another key");
        // Choices that read the report's other files are not kept.
        let unkept: [fn(&mut Evidence); 2] = [|e| e.given = true, |e| e.chosen = true];
        for change in unkept {
            let mut e = base.clone();
            change(&mut e);
            assert!(key(&e).is_none());
        }
    }
}
