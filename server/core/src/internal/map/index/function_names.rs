//! What names a position's function: the segments' `names`, Metro's function maps (`x_facebook_sources`) and ECMA-426
//! `scopes`.

use super::{SourceMapIndex, SpanOfSource};
use crate::internal::map::function_map::{FunctionMap, FunctionMapError};
use crate::internal::map::names::Names;
use crate::internal::map::position::{GeneratedPosition, SourceId};
use crate::internal::map::scopes::{decode_scopes, DecodedScopes, ScopesError};
use std::borrow::Cow;
use std::sync::Arc;

impl SourceMapIndex {
    /// The text of `names[name]` of a section, when its names are in memory: names left in the file (a lazy or
    /// shed index) are not read for this (a pass over every segment would build every section's table and keep it:
    /// +55 MB on the editor benchmark's Metro bundle).
    pub fn segment_name_if_loaded(&self, section: usize, name: u32) -> Option<&str> {
        match &self.sections[section].names {
            Names::Table(t) => t.get(name as usize),
            Names::InFile(n) => n.table.get()?.get(name as usize),
        }
    }

    /// The text of `names[name]` of a section, read back from the map file the first time when its names were left
    /// there (the section's table then stays in memory).
    pub fn segment_name(&self, section: usize, name: u32) -> Option<&str> {
        self.names_of(section).get(name as usize)
    }

    /// Whether a section's names are in memory ([`SourceMapIndex::segment_name_if_loaded`] answers from them).
    pub fn segment_names_loaded(&self, section: usize) -> bool {
        match &self.sections[section].names {
            Names::Table(_) => true,
            Names::InFile(n) => n.table.get().is_some(),
        }
    }

    /// The function enclosing an original position (0-based) of `source`, from the section's Metro function map
    /// (`x_facebook_sources`), when it has one. `Err` when the field is malformed.
    pub fn facebook_function_name(
        &self,
        section: usize,
        source: SourceId,
        line: u32,
        column: u32,
    ) -> Result<Option<String>, FunctionMapError> {
        Ok(self
            .function_map_of(section, source)?
            .and_then(|m| m.name_at(line, column).map(str::to_string)))
    }

    /// Whether the section has an `x_facebook_sources` field at all (read without decoding it).
    pub fn section_has_function_maps(&self, section: usize) -> bool {
        self.sections[section].x_facebook_sources.is_some()
    }

    /// Reads the section's `x_facebook_sources` (every function map in it checked) now rather than at the first
    /// name asked (see [`SourceMapIndex::prepare_large_sections`]).
    pub(super) fn prepare_function_maps(&self, section: usize) {
        if let Some(&source) = self.sections[section].sources.iter().next() {
            let _ = self.function_map_span(section, source, &mut None);
        }
    }

    /// Whether the section's `x_facebook_sources` holds a function map for `source` (composing tools write the
    /// field with `null` for every source that has none: metro-source-map's `composeSourceMaps` over an esbuild map).
    /// A malformed field holds none.
    pub fn has_function_map(&self, section: usize, source: SourceId) -> bool {
        matches!(
            self.function_map_span(section, source, &mut None),
            Ok(Some(_))
        )
    }

    /// Where `source`'s function map is in the section's `x_facebook_sources`, the field read (and every map in it
    /// checked) on first use; with the field's range in the buffer, or in the file once shed. The first use also
    /// gives `source`'s map, decoded on the way (`decoded`), so it is not read twice.
    fn function_map_span(
        &self,
        section: usize,
        source: SourceId,
        decoded: &mut Option<FunctionMap>,
    ) -> Result<Option<SpanOfSource<'_>>, FunctionMapError> {
        let s = &self.sections[section];
        let Some(range) = s.x_facebook_sources.clone() else {
            return Ok(None);
        };
        let local = s.sources.iter().position(|&g| g == source);
        let mut spans = || {
            let bytes = match s.facebook_sources_hash {
                None => Cow::Borrowed(&self.buffer[range.clone()]),
                Some(hash) => Cow::Owned(
                    self.read_back(&range, Some(hash))
                        .ok_or(FunctionMapError::FileChanged)?,
                ),
            };
            let raw = std::str::from_utf8(&bytes)?;
            FunctionMap::element_spans(raw, local, decoded)
        };
        let spans: &Result<_, _> = s.function_maps.get_or_init(|| Box::new(spans()));
        let spans = spans.as_ref().map_err(Clone::clone)?;
        let Some(local) = local else {
            return Ok(None);
        };
        Ok(spans
            .get(local)
            .and_then(Option::as_ref)
            .map(|span| (local, span, range)))
    }

    /// `source`'s function map in the section's `x_facebook_sources`: decoded from its element (read back from the
    /// map file, checked against its hash, once shed) and kept among the last used.
    pub(super) fn function_map_of(
        &self,
        section: usize,
        source: SourceId,
    ) -> Result<Option<Arc<FunctionMap>>, FunctionMapError> {
        let mut decoded = None;
        let Some((local, span, field)) = self.function_map_span(section, source, &mut decoded)?
        else {
            return Ok(None);
        };
        if let Some(m) = self.function_maps.get((section, local)) {
            return Ok(Some(m));
        }
        let map = match decoded {
            Some(m) => Arc::new(m),
            None => {
                let at = field.start + span.range.start..field.start + span.range.end;
                let bytes = match self.sections[section].facebook_sources_hash {
                    None => Cow::Borrowed(&self.buffer[at]),
                    Some(_) => Cow::Owned(
                        self.read_back(&at, Some(span.hash))
                            .ok_or(FunctionMapError::FileChanged)?,
                    ),
                };
                let text = std::str::from_utf8(&bytes)?;
                Arc::new(FunctionMap::decode_element(text)?)
            }
        };
        self.function_maps.put((section, local), map.clone());
        Ok(Some(map))
    }

    /// The section's decoded `scopes` (ECMA-426 proposal), if it has the field; `Err` when it is malformed.
    pub fn scopes(&self, section: usize) -> Option<Result<&DecodedScopes, ScopesError>> {
        let s = &self.sections[section];
        let range = s.scopes.clone()?;
        let decode = || {
            let text: String = serde_json::from_slice(&self.buffer[range])
                .map_err(|e| ScopesError::NotAString(Arc::new(e)))?;
            decode_scopes(&text, self.names_of(section), s.sources.len())
        };
        let decoded: &Result<_, _> = s.decoded_scopes.get_or_init(|| Box::new(decode()));
        Some(decoded.as_ref().map_err(Clone::clone))
    }

    /// The original function a generated position is in, from the section's `scopes`.
    pub fn scopes_function_name(&self, section: usize, p: GeneratedPosition) -> Option<String> {
        let s = &self.sections[section];
        let (line, column) = s.to_local(p)?;
        let decoded = self.scopes(section)?.ok()?;
        decoded.function_name_at(line, column).map(str::to_string)
    }
}
