//! What reads the whole map: the reverse index of a source, building and validating every section, and the heap
//! the decoded parts hold.

use super::{DecodedHeap, SourceMapIndex};
use crate::internal::map::compact::CompactMappings;
use crate::internal::map::error::{MapError, MapErrors};
use crate::internal::map::function_map::ElementSpan;
use crate::internal::map::names::{NameTable, Names};
use crate::internal::map::position::SourceId;
use crate::internal::map::reverse::{ReverseEntry, ReverseIndex};
use crate::internal::map::scopes::DecodedScopes;
use std::sync::OnceLock;

impl SourceMapIndex {
    /// The reverse index of one source, built on first use.
    pub fn reverse(&self, id: SourceId) -> Result<&ReverseIndex, MapError> {
        if let Some(r) = self.reverse[id.0 as usize].get() {
            return Ok(r);
        }
        let built = self.build_reverse(id)?;
        Ok(self.reverse[id.0 as usize].get_or_init(|| built))
    }

    /// Every segment mapping into `source`, from the sections that list it only (in a Metro index map, one
    /// module's section), and there only from the stretch of `mappings` where its segments lie when the section
    /// knows it.
    fn build_reverse(&self, source: SourceId) -> Result<ReverseIndex, MapError> {
        let mut entries = Vec::new();
        for (i, section) in self.sections().iter().enumerate() {
            if !section.sources().contains(&source) {
                continue;
            }
            let compact = self.compact(i)?;
            let locals = section.sources();
            let bytes = self.section_mappings(i);
            let mine = (0..locals.len() as u32).filter(|&l| locals[l as usize] == source);
            let end = self.section_end(i);
            let visit = |seg: &crate::internal::map::segment::Segment| {
                let Some(o) = seg.original.filter(|_| !Self::shadowed(end, seg)) else {
                    return;
                };
                if locals[o.source as usize] != source {
                    return;
                }
                entries.push(ReverseEntry::new(
                    o.line,
                    o.column,
                    o.name,
                    section.to_global(seg.line, seg.column),
                ));
            };
            match compact.span_of(mine) {
                Some(span) => compact.for_each_in(bytes, span, visit),
                None => compact.for_each(bytes, visit),
            }
        }
        Ok(ReverseIndex::from_unsorted(entries))
    }

    /// Whether any section has `rangeMappings` (which [`Self::for_each_segment_once`] does not read or check).
    pub fn has_range_mappings(&self) -> bool {
        self.sections.iter().any(|s| s.range_mappings.is_some())
    }

    /// Total length of all `mappings` strings.
    pub fn mappings_bytes(&self) -> usize {
        self.sections.iter().map(|s| s.mappings.len()).sum()
    }

    /// Builds every section's checkpoints now (a no-op for an eagerly built index).
    pub fn build_all(&self) -> Result<(), MapErrors> {
        let errors: Vec<MapError> = (0..self.sections.len())
            .filter_map(|i| self.compact(i).err())
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(MapErrors(errors))
        }
    }

    /// Validates every section, like [`Self::build_all`], but keeps the checkpoints only of sections built already
    /// and of invalid ones (their error): a lazy index stays as small as the queries made it. Computed once.
    ///
    /// A map of one section (a flat map) is built and kept instead: any lookup needs that section whole, and the
    /// language server validates (for diagnostics) while the first hover builds it, so decoding it apart had both
    /// threads decode the same `mappings` at once: on the real Metro build of the editor benchmark (50.6 MB of
    /// `mappings`, `sourcemap-bench --hovers-only`) the first hover waited for a core the second decode held.
    pub fn validate_all(&self) -> Result<(), MapErrors> {
        if self.sections.len() == 1 {
            return self
                .validated
                .get_or_init(|| match self.compact(0) {
                    Ok(_) => Ok(()),
                    Err(e) => Err(MapErrors(vec![e])),
                })
                .clone();
        }
        self.validated
            .get_or_init(|| {
                let errors: Vec<MapError> = (0..self.sections.len())
                    .filter_map(|i| match self.compacts[i].get() {
                        Some(built) => built.as_ref().err().map(|e| (**e).clone()),
                        None => match self.build_section(i) {
                            Ok(_) => None,
                            Err(e) => {
                                let _ = self.compacts[i].set(Err(Box::new(e.clone())));
                                Some(e)
                            }
                        },
                    })
                    .collect();
                if errors.is_empty() {
                    Ok(())
                } else {
                    Err(MapErrors(errors))
                }
            })
            .clone()
    }

    /// Decodes every section's names and function maps now, as queries touching every section would (`stats
    /// --memory`: what a long-running server may come to hold).
    pub fn decode_all_lazy_parts(&self) {
        for (i, s) in self.sections.iter().enumerate() {
            let _ = self.names_of(i);
            for &source in s.sources() {
                let _ = self.function_map_of(i, source);
            }
        }
    }

    /// Heap held by what the index decodes on first use and keeps, beside its buffer and checkpoints: names,
    /// Metro function maps, `scopes`, reverse indexes. Each is one per section or source, so bounded by the map;
    /// on an index map they grow as queries touch more sections (the server reports them in `sourcemap/mapInfo`).
    pub fn decoded_heap(&self) -> DecodedHeap {
        let mut heap = DecodedHeap::default();
        for s in &self.sections {
            heap.names += match &s.names {
                Names::Table(t) => t.heap_bytes(),
                Names::InFile(n) => n.table.get().map_or(0, NameTable::heap_bytes),
            };
            if let Some(Ok(spans)) = s.function_maps.get().map(|b| b.as_ref()) {
                heap.function_maps += spans.capacity() * std::mem::size_of::<Option<ElementSpan>>();
            }
            heap.scopes += usize::from(s.decoded_scopes.get().is_some())
                * std::mem::size_of::<DecodedScopes>();
        }
        heap.function_maps += self.function_maps.heap_bytes();
        heap.reverse = self
            .reverse
            .iter()
            .filter_map(OnceLock::get)
            .map(ReverseIndex::heap_bytes)
            .sum();
        heap
    }

    /// Heap bytes held by checkpoints and line tables of built sections (the VLQ itself is in the buffer).
    pub fn checkpoint_heap_bytes(&self) -> usize {
        self.compacts
            .iter()
            .filter_map(|c| c.get().and_then(|c| c.as_ref().ok()))
            .map(CompactMappings::heap_bytes)
            .sum()
    }
}
