//! The bundle outline: one module per section of an index map, or per run of consecutive segments from one source in
//! a flat map (1-field segments belong to the run they are in).

use sourcemap_core::{GeneratedPosition, SourceMapIndex};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// The module's source path (the first source of a section; `+N` when it has more).
    pub name: String,
    pub start: GeneratedPosition,
    /// Where the next module starts; `None` for the last one (it runs to the end of the bundle).
    pub end: Option<GeneratedPosition>,
}

fn source_name(index: &SourceMapIndex, id: sourcemap_core::SourceId) -> String {
    index
        .source(id)
        .url
        .as_deref()
        .map_or_else(|| format!("(source {})", id.0), str::to_string)
}

pub fn outline(index: &SourceMapIndex) -> Vec<Module> {
    let mut modules = Vec::new();
    if index.is_index_map {
        let sections = index.sections();
        for (i, s) in sections.iter().enumerate() {
            let name = match s.sources() {
                [] => format!("(section {i})"),
                [one] => source_name(index, *one),
                [first, rest @ ..] => format!("{} (+{})", source_name(index, *first), rest.len()),
            };
            modules.push(Module {
                name,
                start: s.offset,
                end: sections.get(i + 1).map(|n| n.offset),
            });
        }
        return modules;
    }
    let mut current: Option<(sourcemap_core::SourceId, GeneratedPosition)> = None;
    let _ = index.for_each_segment(|hit| {
        let Some(o) = hit.original else { return };
        match current {
            Some((source, _)) if source == o.source => {}
            Some((source, start)) => {
                modules.push(Module {
                    name: source_name(index, source),
                    start,
                    end: Some(hit.generated),
                });
                current = Some((o.source, hit.generated));
            }
            None => current = Some((o.source, hit.generated)),
        }
    });
    if let Some((source, start)) = current {
        modules.push(Module {
            name: source_name(index, source),
            start,
            end: None,
        });
    }
    modules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_one_source_in_a_flat_map() {
        // a.js, a.js, (1-field), b.js on the next line, a.js again.
        let map = br#"{"version":3,"sources":["a.js","b.js"],"mappings":"AAAA,EAAE,E;ACAA,EDAA"}"#;
        let index = SourceMapIndex::from_bytes(map.to_vec()).unwrap();
        let names: Vec<_> = outline(&index)
            .into_iter()
            .map(|m| (m.name, m.start.line, m.start.column, m.end))
            .collect();
        assert_eq!(
            names,
            vec![
                (
                    "a.js".into(),
                    0,
                    0,
                    Some(GeneratedPosition { line: 1, column: 0 })
                ),
                (
                    "b.js".into(),
                    1,
                    0,
                    Some(GeneratedPosition { line: 1, column: 2 })
                ),
                ("a.js".into(), 1, 2, None),
            ]
        );
    }
}
