//! Maps inside archives, for the editor as for `symbolicate --maps ARCHIVE` (the core's `ArchiveStore`, read in
//! place, never extracted): an Electron app's `app.asar` found in a workspace folder when a frame's path runs through
//! `app.asar/` (or `app.asar.unpacked/`), and the archives the `maps` setting names for a frame's file (a value
//! ending in `.asar` or `.zip`: `{"app:///**": "release/resources/app.asar"}`, a Sentry artifact bundle's zip).
//!
//! A map read from an archive is indexed as an inline map is (content-addressed: `MapKey::Inline`, its bundle the
//! member's path through the archive), so it is never stale; the bundle's text for the fit check is the member's
//! (`member_text`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sourcemap_core::bundle::resolve::{Refusal, Served, MAX_SAME_NAMED, SEARCH_DEPTH};
use sourcemap_core::internal::fs::walk::find_files_named;
use sourcemap_core::session::files::{archive_member_of, archive_named_in, ArchiveStore};

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::maps::memo::FileStamp;
use crate::lsp::workspace::snapshot::Snapshot;

/// A member read for its text is at most this big (the parsed texts' limit elsewhere).
const MAX_MEMBER_BYTES: u64 = 256 << 20;

/// Archives opened during one request, by path (`Err`: why it could not be read), and the archives of each name
/// found in the workspace folders: a log's frames through one `app.asar` walk the folders once.
#[derive(Default)]
pub struct OpenedArchives {
    opened: HashMap<PathBuf, Result<Arc<ArchiveStore>, String>>,
    named: HashMap<String, Vec<PathBuf>>,
}

impl OpenedArchives {
    fn open(&mut self, path: &Path) -> Result<Arc<ArchiveStore>, String> {
        self.opened
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                ArchiveStore::open(path)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
    }
}

/// Which archives a frame's file is looked for in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ArchivesFor {
    /// Those the `maps` setting names for it: they answer for the file, map or no map.
    Named,
    /// Those of the name its path runs through (`…/app.asar/…`), found in the workspace folders: they answer only
    /// with a map (an app built with hidden maps holds none: its maps are shipped apart).
    OnItsPath,
}

fn archives_for(
    b: &Snapshot<'_>,
    opened: &mut OpenedArchives,
    file: &str,
    which: ArchivesFor,
) -> Vec<PathBuf> {
    let folders = b.folders.clone();
    match which {
        ArchivesFor::Named => b.settings.map_archives_for(file, &folders),
        ArchivesFor::OnItsPath => {
            let Some(name) = archive_named_in(file) else {
                return Vec::new();
            };
            opened
                .named
                .entry(name)
                .or_insert_with_key(|name| {
                    folders
                        .iter()
                        .flat_map(|f| find_files_named(f, name, SEARCH_DEPTH, MAX_SAME_NAMED))
                        .collect()
                })
                .clone()
        }
    }
}

/// The map of a frame's file from an archive, loaded: [`Served::NotHere`] when no archive answers for the file,
/// [`Served::Refused`] when one named for it holds no map for it (or cannot be read).
pub fn archive_map(
    b: &Snapshot<'_>,
    handle: &tokio::runtime::Handle,
    opened: &mut OpenedArchives,
    file: &str,
    which: ArchivesFor,
) -> Served<Arc<LoadedMap>> {
    let paths = archives_for(b, opened, file, which);
    let mut unreadable = None;
    for path in &paths {
        let archive = match opened.open(path) {
            Ok(a) => a,
            Err(e) => {
                unreadable.get_or_insert(e);
                continue;
            }
        };
        let Some((bundle, how)) = archive.bundle_for(file) else {
            continue;
        };
        let Some((bytes, map)) = archive.map_of(&bundle) else {
            if which == ArchivesFor::OnItsPath {
                continue;
            }
            return Served::Refused(Refusal(format!(
                "{bundle} in {} leads to no map the archive holds",
                path.display()
            )));
        };
        let key = MapKey::inline(&archive.member_path(&bundle), &bytes);
        return handle
            .block_on(b.maps.load_inline(key, Arc::new(bytes)))
            .map(|m| (m, format!("{bundle} ({how}), its map {map}")))
            .map_err(|e| Refusal(format!("{map} in {}: {e}", path.display())))
            .into();
    }
    match unreadable.filter(|_| which == ArchivesFor::Named) {
        Some(why) => Served::Refused(Refusal(why)),
        None => Served::NotHere,
    }
}

/// The text of a bundle that is an archive's member (`…/app.asar/out/main/index.js`), keyed by the archive's stamp:
/// the fit check and function names read it as they read a bundle on disk.
pub fn member_text(bundle: &Path) -> Option<(FileStamp, impl FnOnce() -> Option<String>)> {
    let (archive, member) = archive_member_of(bundle)?;
    let (_, _, stamp) = FileStamp::open(&archive)?;
    Some((stamp, move || {
        let store = sourcemap_core::internal::fs::archive::Archive::open(&archive).ok()?;
        String::from_utf8(store.read(&member, MAX_MEMBER_BYTES).ok()?).ok()
    }))
}
