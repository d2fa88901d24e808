//! `NameTable`: a map's (or section's) `names` in two allocations — the texts end to end, and where each ends.
//!
//! A Metro index map carries ~800K names over 16,500 sections; one heap string per name made the allocator the
//! biggest cost of opening it after JSON scanning itself.

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
    pub fn new<S: AsRef<str>>(
        names: impl IntoIterator<Item = S>,
    ) -> Result<NameTable, NamesTooLong> {
        let mut text = String::new();
        let mut ends = Vec::new();
        for name in names {
            text.push_str(name.as_ref());
            ends.push(u32::try_from(text.len()).map_err(|_| NamesTooLong)?);
        }
        Ok(NameTable {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        })
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)? as usize;
        let start = match index {
            0 => 0,
            i => self.ends[i - 1] as usize,
        };
        Some(&self.text[start..end])
    }

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
        let t = NameTable::new(["a", "", "ünï", "b"]).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(
            (t.get(0), t.get(1), t.get(2), t.get(3), t.get(4)),
            (Some("a"), Some(""), Some("ünï"), Some("b"), None)
        );
        assert_eq!(t.iter().collect::<Vec<_>>(), ["a", "", "ünï", "b"]);
        assert!(NameTable::default().is_empty());
    }
}
