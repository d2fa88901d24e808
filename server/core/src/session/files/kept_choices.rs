//! Files' choices kept across a pipeline's sessions (`bundle::resolve::kept`): by the key the resolver and the
//! place write, within one generation of the store (a [`DiskMemo`](super::DiskMemo)'s), under the cache budget.
//!
//! A choice is kept only when the place can give it back whole: a map found through the bundle it chose (its
//! sourceMappingURL, its sidecar, its debug ID), whose bundle the map already knows, or no map at all; nothing said
//! while choosing. Given back, the map joins the session as choosing it would have made it join: the one the session
//! already holds for that bundle, else the kept one, if the store still holds it.

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use super::{BundleFile, FilesPlace, KnownMap};
use crate::bundle::resolve::Choice;
use crate::internal::budget::{CacheBudget, Lru};

/// See the module documentation.
#[derive(Clone)]
pub struct KeptChoices {
    kept: Arc<Lru<u128, Arc<Kept>>>,
}

pub(super) struct Kept {
    key: Box<[u8]>,
    choice: KeptChoice,
}

/// A choice as sessions share it: a map by the store's own handle instead of a session's number.
pub(super) enum KeptChoice {
    Map {
        /// The map; kept weakly, so that keeping a choice never keeps a map the cache let go.
        map: Weak<KnownMap>,
        /// The bundle as chosen, and its real path (by which the session knows the bundles it found).
        bundle: PathBuf,
        real: PathBuf,
        why: String,
    },
    Unmapped(String),
    Ambiguous(String),
}

impl KeptChoices {
    /// Choices kept under `budget` (with whatever else it holds).
    pub fn new(budget: &Arc<CacheBudget>) -> KeptChoices {
        KeptChoices {
            kept: Lru::new("fileChoices", budget),
        }
    }

    pub(super) fn get(&self, key: &[u8]) -> Option<Arc<Kept>> {
        self.kept
            .get(&xxhash_rust::xxh3::xxh3_128(key))
            .filter(|k| *k.key == *key)
    }

    pub(super) fn keep(&self, key: Vec<u8>, choice: KeptChoice) {
        let bytes = key.len()
            + std::mem::size_of::<Kept>()
            + match &choice {
                KeptChoice::Map {
                    bundle, real, why, ..
                } => bundle.as_os_str().len() + real.as_os_str().len() + why.len(),
                KeptChoice::Unmapped(why) | KeptChoice::Ambiguous(why) => why.len(),
            };
        let hash = xxhash_rust::xxh3::xxh3_128(&key);
        let kept = Kept {
            key: key.into_boxed_slice(),
            choice,
        };
        self.kept.insert(hash, Arc::new(kept), bytes);
    }
}

impl Kept {
    pub(super) fn choice(&self) -> &KeptChoice {
        &self.choice
    }
}

/// The place's side of keeping choices (`Place::choice_key`, `kept_choice`, `keep_choice`).
impl FilesPlace {
    pub(super) fn choice_key_of(&self, file: &str) -> Option<(Vec<u8>, usize)> {
        self.disk.choices.as_ref()?;
        // Maps given, bundles chosen, folders of maps and maps served are the user's word for every file.
        if self.given > 0
            || !self.chosen.is_empty()
            || !self.map_dirs.is_empty()
            || self.served_maps.is_some()
        {
            return None;
        }
        let mut key = Vec::with_capacity(256);
        self.disk.write_folders(&mut key);
        crate::trace::symbolicate::key_text(
            &mut key,
            self.file_debug_ids.get(file).map(String::as_str),
        );
        // The words of what the user can do (the command line's or the editor's).
        key.extend_from_slice(&(self.hints as usize as u64).to_le_bytes());
        Some((key, self.notes.len() + self.broken.len()))
    }

    pub(super) fn kept_choice_of(&mut self, key: &[u8]) -> Option<Choice<usize>> {
        let kept = self.disk.choices.as_ref()?.get(key)?;
        let KeptChoice::Map {
            map,
            bundle,
            real,
            why,
        } = kept.choice()
        else {
            return without_map(kept.choice());
        };
        // As `own_map` finds it: the map this session found for the bundle, else the kept one (if still held).
        let at = match self.by_bundle.get(real) {
            Some(Some(at)) => *at,
            Some(None) => return None,
            None => {
                let at = self.push(map.upgrade()?);
                self.by_bundle.insert(real.clone(), Some(at));
                at
            }
        };
        Some(Choice::Map {
            map: at,
            bundle: Some(bundle.clone()),
            why: why.clone(),
        })
    }

    pub(super) fn keep_choice_of(&mut self, key: Vec<u8>, choice: &Choice<usize>, mark: usize) {
        let Some(choices) = &self.disk.choices else {
            return;
        };
        if self.notes.len() + self.broken.len() != mark {
            return;
        }
        let kept = match choice {
            Choice::Map {
                map,
                bundle: Some(bundle),
                why,
            } => {
                let real = self.disk.canonical(bundle);
                let m = &self.maps[*map];
                // Only a map found for this bundle (`own_map`), that knows its bundle (`serves` leaves it so).
                let found_so = self.by_bundle.get(&real) == Some(&Some(*map))
                    && matches!(m.bundle, BundleFile::Known(_) | BundleFile::InArchive(..));
                if !found_so {
                    return;
                }
                KeptChoice::Map {
                    map: Arc::downgrade(m),
                    bundle: bundle.clone(),
                    real,
                    why: why.clone(),
                }
            }
            Choice::Map { bundle: None, .. } => return,
            Choice::Unmapped { why } => KeptChoice::Unmapped(why.clone()),
            Choice::Ambiguous { why } => KeptChoice::Ambiguous(why.clone()),
        };
        choices.keep(key, kept);
    }
}

/// A kept choice without a map, as the session's.
pub(super) fn without_map(choice: &KeptChoice) -> Option<Choice<usize>> {
    match choice {
        KeptChoice::Map { .. } => None,
        KeptChoice::Unmapped(why) => Some(Choice::Unmapped { why: why.clone() }),
        KeptChoice::Ambiguous(why) => Some(Choice::Ambiguous { why: why.clone() }),
    }
}
