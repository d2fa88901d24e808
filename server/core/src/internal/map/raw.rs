//! A map's JSON as both readers see it before validation: each field's exact text in the buffer (`Raw`), a map's
//! fields (`RawMap`), sections read in the same pass. `parse` (serde, with located errors) and `fast_read` (the
//! strict one-pass reader) both produce these; `parse` then validates them into byte ranges.

use serde::Deserialize;
use serde_json::value::RawValue;

/// A JSON value's exact text in the buffer (what serde's `RawValue` captures), which the fast reader
/// (`map/fast_read.rs`) also produces without serde.
#[derive(Clone, Copy)]
pub(crate) struct Raw<'a>(pub(crate) &'a str);

/// With its address: two readings of one buffer agree only if they picked the same bytes.
impl std::fmt::Debug for Raw<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:p}{:?}", self.0.as_ptr(), self.0)
    }
}

impl<'a> Raw<'a> {
    pub(crate) fn get(&self) -> &'a str {
        self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&'de RawValue>::deserialize(deserializer).map(|r| Raw(r.get()))
    }
}

/// A map's fields, each kept as raw JSON text. `S` is what `sections` is read as: raw text, or (on the one-pass
/// fast path for index maps) the sections themselves.
#[derive(Deserialize, Debug)]
#[serde(bound(deserialize = "'de: 'a, S: Deserialize<'de>, C: Deserialize<'de>"))]
pub(crate) struct RawMap<'a, S = Raw<'a>, C = Raw<'a>> {
    #[serde(borrow, default)]
    pub(crate) version: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) file: Option<Raw<'a>>,
    #[serde(borrow, default, rename = "sourceRoot")]
    pub(crate) source_root: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) sources: Option<Raw<'a>>,
    /// Raw text (read item by item later), or the items already (the one pass: `sourcesContent` is most of a
    /// Metro map, and reading it twice was a sixth of opening one).
    #[serde(default, rename = "sourcesContent")]
    pub(crate) sources_content: Option<C>,
    #[serde(borrow, default)]
    pub(crate) names: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) mappings: Option<Raw<'a>>,
    #[serde(borrow, default, rename = "ignoreList")]
    pub(crate) ignore_list: Option<Raw<'a>>,
    #[serde(borrow, default, rename = "x_google_ignoreList")]
    pub(crate) x_google_ignore_list: Option<Raw<'a>>,
    #[serde(borrow, default, rename = "debugId")]
    pub(crate) debug_id: Option<Raw<'a>>,
    /// `debug_id`, the spelling `sentry-cli sourcemaps inject` and Sentry's bundler plugins write (getsentry/sentry-cli,
    /// `src/utils/sourcemaps.rs`: `DEBUG_ID_KEY = "debug_id"`; newer versions write `debugId` beside it). Kept apart
    /// from `debugId` so a map with both is read (serde's `alias` would refuse it as a repeated field).
    #[serde(borrow, default, rename = "debug_id")]
    pub(crate) debug_id_snake: Option<Raw<'a>>,
    #[serde(borrow, default, rename = "rangeMappings")]
    pub(crate) range_mappings: Option<Raw<'a>>,
    #[serde(default)]
    pub(crate) sections: Option<S>,
    #[serde(borrow, default)]
    pub(crate) x_facebook_sources: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) x_hermes_function_offsets: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) scopes: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) x_facebook_offsets: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) x_facebook_segments: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) x_metro_module_paths: Option<Raw<'a>>,
    /// dart2js's own member (its minified names): only its presence is read, to know dart2js made the map.
    #[serde(borrow, default)]
    pub(crate) x_org_dartlang_dart2js: Option<Raw<'a>>,
    /// How many strings `names` holds, when the fast reader counted them (all strings); serde's pass leaves it
    /// `None` and the names are counted on their own.
    #[serde(skip)]
    pub(crate) names_count: Option<u32>,
    /// `mappings` is a string without escapes (the fast reader knows; serde's pass leaves it to be checked).
    #[serde(skip)]
    pub(crate) mappings_plain: bool,
}

impl<'a, S, C> RawMap<'a, S, C> {
    pub(crate) fn empty() -> Self {
        RawMap {
            version: None,
            file: None,
            source_root: None,
            sources: None,
            sources_content: None,
            names: None,
            mappings: None,
            ignore_list: None,
            x_google_ignore_list: None,
            debug_id: None,
            debug_id_snake: None,
            range_mappings: None,
            sections: None,
            x_facebook_sources: None,
            x_hermes_function_offsets: None,
            scopes: None,
            x_facebook_offsets: None,
            x_facebook_segments: None,
            x_metro_module_paths: None,
            x_org_dartlang_dart2js: None,
            names_count: None,
            mappings_plain: false,
        }
    }
}

/// A section read in the same pass as the whole document (the fast path for valid index maps).
#[derive(Deserialize, Debug)]
pub(crate) struct TypedSection<'a> {
    #[serde(borrow, default)]
    pub(crate) offset: Option<Raw<'a>>,
    #[serde(borrow, default)]
    pub(crate) map: Option<ObjectOnly<OnePassMap<'a>>>,
    #[serde(borrow, default)]
    pub(crate) url: Option<Raw<'a>>,
}

/// A regular map as the one pass reads it: `sourcesContent` must be an array (else the located path reports it).
pub(crate) type OnePassMap<'a> = RawMap<'a, Raw<'a>, Vec<Raw<'a>>>;

/// Reads `T` only from a JSON object: serde's derived structs also accept arrays (fields by position), which a
/// source map must not.
#[derive(Debug)]
pub(crate) struct ObjectOnly<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
            type Value = ObjectOnly<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(ObjectOnly)
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}
