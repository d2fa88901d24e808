//! `NameTable`: a map's (or section's) `names` in two allocations — the texts end to end, and where each ends.
//!
//! A Metro index map carries ~800K names over 16,500 sections; one heap string per name made the allocator the
//! biggest cost of opening it after JSON scanning itself.

/// A section's names: in memory, or left in the map file (`SourceMapIndex::shed_contents`) and read back on first use.
#[derive(Debug)]
pub(crate) enum Names {
    Table(NameTable),
    InFile(Box<NamesInFile>),
}

/// Names left in the map file: the raw JSON array's place, the hash its bytes must have, and the table once read.
#[derive(Debug)]
pub(crate) struct NamesInFile {
    pub range: std::ops::Range<usize>,
    /// What the bytes must hash to once the buffer is shed (`None` before: the buffer is the file).
    pub hash: Option<u64>,
    pub count: u32,
    pub table: std::sync::OnceLock<NameTable>,
}

impl Names {
    pub(crate) fn len(&self) -> usize {
        match self {
            Names::Table(t) => t.len(),
            Names::InFile(n) => n.count as usize,
        }
    }
}

/// The names of one map, indexed as in its `names` array.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameTable {
    text: Box<str>,
    /// `ends[i]` is the byte offset in `text` where name `i` ends (it starts where name `i - 1` ends).
    ends: Box<[u32]>,
}

/// The names' texts together exceed 4 GiB (offsets are kept in 32 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamesTooLong;

impl NameTable {
    /// A table of `names`; `Err` when their texts together exceed 4 GiB.
    pub fn new<S: AsRef<str>>(names: &[S]) -> Result<NameTable, NamesTooLong> {
        let mut text = String::with_capacity(names.iter().map(|n| n.as_ref().len()).sum());
        let mut ends = Vec::with_capacity(names.len());
        for name in names {
            text.push_str(name.as_ref());
            ends.push(u32::try_from(text.len()).map_err(|_| NamesTooLong)?);
        }
        Ok(NameTable {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        })
    }

    /// Checks that `json` is an array of strings and counts them, keeping no text (for names left in the file).
    pub fn count_json_array(json: &str) -> Result<u32, serde_json::Error> {
        use serde::de::{Deserializer, Error, SeqAccess, Visitor};

        struct Count;
        impl<'de> Visitor<'de> for Count {
            type Value = u32;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u32, A::Error> {
                let mut n: u32 = 0;
                while seq.next_element::<AString>()?.is_some() {
                    n = n
                        .checked_add(1)
                        .ok_or_else(|| A::Error::custom("too many names"))?;
                }
                Ok(n)
            }
        }
        /// One string element, not kept.
        struct AString;
        impl<'de> serde::Deserialize<'de> for AString {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AString, D::Error> {
                d.deserialize_str(StrVisitor)
            }
        }
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = AString;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: Error>(self, _: &str) -> Result<AString, E> {
                Ok(AString)
            }
        }
        let mut de = serde_json::Deserializer::from_str(json);
        let n = (&mut de).deserialize_seq(Count)?;
        de.end()?;
        Ok(n)
    }

    /// Reads a JSON array of strings straight into a table: no string or list allocated per name. Fails on anything
    /// that is not an array of strings (the caller then reads it item by item to say where).
    pub fn from_json_array(json: &str) -> Result<NameTable, serde_json::Error> {
        use serde::de::{DeserializeSeed, Deserializer, Error, SeqAccess, Visitor};

        /// Capacities: the JSON text bounds the names' text, and its commas their count (both trimmed at the end).
        struct Table {
            text: usize,
            count: usize,
        }
        impl<'de> Visitor<'de> for Table {
            type Value = NameTable;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NameTable, A::Error> {
                let mut text = String::with_capacity(self.text);
                let mut ends = Vec::with_capacity(self.count);
                while seq.next_element_seed(AppendTo(&mut text))?.is_some() {
                    ends.push(
                        u32::try_from(text.len()).map_err(|_| {
                            A::Error::custom("the names hold more than 4 GiB of text")
                        })?,
                    );
                }
                Ok(NameTable {
                    text: text.into_boxed_str(),
                    ends: ends.into_boxed_slice(),
                })
            }
        }
        /// Appends one string element, escaped or not, to the table's text.
        struct AppendTo<'t>(&'t mut String);
        impl<'de> DeserializeSeed<'de> for AppendTo<'_> {
            type Value = ();
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                d.deserialize_str(self)
            }
        }
        impl<'de> Visitor<'de> for AppendTo<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<(), E> {
                self.0.push_str(v);
                Ok(())
            }
        }

        let mut de = serde_json::Deserializer::from_str(json);
        let table = de.deserialize_seq(Table {
            text: json.len(),
            count: memchr::memchr_iter(b',', json.as_bytes()).count() + 1,
        })?;
        de.end()?;
        Ok(table)
    }

    /// How many names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no names.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Name `index`'s text; `None` past the end.
    pub fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)? as usize;
        let start = match index {
            0 => 0,
            i => self.ends[i - 1] as usize,
        };
        Some(&self.text[start..end])
    }

    /// Asks the CPU to start loading the table (its first name ends and texts) while a lookup decodes.
    pub(crate) fn prefetch(&self) {
        crate::internal::map::prefetch::prefetch(self.ends.as_ptr());
        crate::internal::map::prefetch::prefetch(self.text.as_ptr());
    }

    /// The names in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.text.len() + self.ends.len() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_back_by_index_empty_ones_included() {
        let t = NameTable::new(&["a", "", "ünï", "b"]).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(
            (t.get(0), t.get(1), t.get(2), t.get(3), t.get(4)),
            (Some("a"), Some(""), Some("ünï"), Some("b"), None)
        );
        assert_eq!(t.iter().collect::<Vec<_>>(), ["a", "", "ünï", "b"]);
        assert!(NameTable::default().is_empty());
        assert_eq!(
            NameTable::count_json_array(r#"["a", "b\"c", ""]"#).unwrap(),
            3
        );
        assert!(NameTable::count_json_array(r#"["a", 1]"#).is_err());
        assert!(NameTable::count_json_array(r#"{"a": 1}"#).is_err());
        let json = NameTable::from_json_array(r#"["a", "", "\u00fcn\u00ef", "b"]"#).unwrap();
        assert_eq!(json, t);
        assert!(NameTable::from_json_array(r#"["a", 1]"#).is_err());
        assert!(NameTable::from_json_array(r#"{"a": 1}"#).is_err());
    }
}
