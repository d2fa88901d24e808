//! Archives read in place, never extracted: an Electron app's `app.asar` and a Sentry artifact bundle (a zip). Each
//! is a set of members by path inside it, read one at a time when asked.
//!
//! **asar** (`@electron/asar`, `lib/disk.ts` `readArchiveHeaderSync` and `lib/pickle.ts`): the file starts with a
//! Chromium pickle of 8 bytes, `[u32 LE payload size = 4][u32 LE header size]`, then the header, a pickle of `header
//! size` bytes: `[u32 LE payload size][u32 LE string length][the JSON string, padded to 4]`. The JSON is a tree
//! `{"files": {name: entry}}`: a folder is `{"files": {...}}`, a file `{"size": n, "offset": "decimal string",
//! "unpacked"?: true, "executable"?: true, "integrity"?: {...}}`, a symlink `{"link": "path inside"}`. A file's bytes
//! are at `8 + header size + offset`; an `unpacked` file is not in the archive but in the folder beside it,
//! `NAME.asar.unpacked/` (`lib/filesystem.ts`, `lib/asar.ts` `extractFile`).
//!
//! **zip** (the `zip` crate): members by their names; a Sentry artifact bundle's `manifest.json` is read by its
//! caller (`session::files::archives`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why an archive could not be read: said in one line with its path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The archive.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The asar header is cut short or is not a header.
    #[error("{path}: not a readable asar archive ({why})")]
    Asar {
        /// The archive.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// The zip's directory is unreadable.
    #[error("{path}: not a readable zip archive ({why})")]
    Zip {
        /// The archive.
        path: String,
        /// What is wrong with it.
        why: String,
    },
}

/// Where a member's bytes are.
#[derive(Debug, Clone)]
enum Member {
    /// In an asar archive: `size` bytes at `at` (from the file's start).
    Asar { at: u64, size: u64 },
    /// Beside an asar archive, in `NAME.asar.unpacked/`.
    Unpacked(PathBuf),
    /// The zip's member of this index.
    Zip(usize),
}

/// An archive whose members are read in place.
pub struct Archive {
    path: PathBuf,
    members: BTreeMap<String, Member>,
    zip: Option<Mutex<zip::ZipArchive<File>>>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("path", &self.path)
            .field("members", &self.members.len())
            .finish()
    }
}

/// The most members an archive's header may list (a header is not a way to make us allocate without bound).
const MAX_MEMBERS: usize = 1 << 20;

impl Archive {
    /// Opens the archive at `path` (asar or zip, by its first bytes), reading its directory only.
    pub fn open(path: &Path) -> Result<Archive, ArchiveError> {
        let shown = path.display().to_string();
        let io = |source| ArchiveError::Io {
            path: shown.clone(),
            source,
        };
        let (mut file, meta) = crate::internal::fs::files::open_regular(path).map_err(io)?;
        let mut head = [0u8; 8];
        let n = read_up_to(&mut file, &mut head).map_err(io)?;
        // A zip, or a Sentry artifact bundle: `SYSB` and a version (u32 LE 2) before the zip itself (sentry-cli
        // `src/utils/source_bundle.rs`); the zip's directory is found from its end either way.
        if n >= 4 && matches!(&head[..4], b"PK\x03\x04" | b"PK\x05\x06" | b"SYSB") {
            return Archive::open_zip(path, file);
        }
        let asar = |why: String| ArchiveError::Asar {
            path: shown.clone(),
            why,
        };
        if n < 8 || u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) != 4 {
            return Err(asar("its first bytes are not an asar header's size".into()));
        }
        let header_size = u64::from(u32::from_le_bytes(head[4..8].try_into().expect("4 bytes")));
        if 8 + header_size > meta.len() {
            return Err(asar(format!(
                "its header of {header_size} bytes runs past the file's end ({} bytes)",
                meta.len()
            )));
        }
        let mut header = vec![0u8; header_size as usize];
        file.read_exact(&mut header).map_err(io)?;
        if header.len() < 8 {
            return Err(asar("its header is shorter than a pickle".into()));
        }
        let len = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes")) as usize;
        let json = header.get(8..8 + len).ok_or_else(|| {
            asar(format!(
                "its header's JSON of {len} bytes runs past the header"
            ))
        })?;
        let tree: serde_json::Value = serde_json::from_slice(json)
            .map_err(|e| asar(format!("its header's JSON does not parse: {e}")))?;
        let base = 8 + header_size;
        let mut members = BTreeMap::new();
        let unpacked_dir = {
            let mut p = path.as_os_str().to_owned();
            p.push(".unpacked");
            PathBuf::from(p)
        };
        let mut stack = vec![(String::new(), &tree)];
        while let Some((prefix, node)) = stack.pop() {
            let Some(files) = node.get("files").and_then(|f| f.as_object()) else {
                return Err(asar(format!("folder {prefix:?} has no \"files\"")));
            };
            for (name, entry) in files {
                if name.is_empty() || name == "." || name == ".." || name.contains('/') {
                    return Err(asar(format!("a member is named {name:?}")));
                }
                let inner = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}/{name}")
                };
                if members.len() >= MAX_MEMBERS {
                    return Err(asar(format!("more than {MAX_MEMBERS} members")));
                }
                if entry.get("files").is_some() {
                    stack.push((inner, entry));
                } else if entry.get("link").is_some() {
                    // Symlinks are not followed: a member is what the archive holds under its own name.
                    continue;
                } else if entry.get("unpacked").and_then(|u| u.as_bool()) == Some(true) {
                    members.insert(inner.clone(), Member::Unpacked(unpacked_dir.join(&inner)));
                } else {
                    let size = entry.get("size").and_then(|s| s.as_u64());
                    let offset = entry
                        .get("offset")
                        .and_then(|o| o.as_str())
                        .and_then(|o| o.parse::<u64>().ok());
                    let (Some(size), Some(offset)) = (size, offset) else {
                        return Err(asar(format!("member {inner:?} has no size or offset")));
                    };
                    let at = base
                        .checked_add(offset)
                        .filter(|at| at + size <= meta.len());
                    let Some(at) = at else {
                        return Err(asar(format!(
                            "member {inner:?} ({size} bytes at {offset}) runs past the file's end: the archive is cut short"
                        )));
                    };
                    members.insert(inner, Member::Asar { at, size });
                }
            }
        }
        Ok(Archive {
            path: path.to_path_buf(),
            members,
            zip: None,
        })
    }

    fn open_zip(path: &Path, file: File) -> Result<Archive, ArchiveError> {
        let zip_error = |e: zip::result::ZipError| ArchiveError::Zip {
            path: path.display().to_string(),
            why: e.to_string(),
        };
        let mut zip = zip::ZipArchive::new(file).map_err(zip_error)?;
        let mut members = BTreeMap::new();
        for i in 0..zip.len().min(MAX_MEMBERS) {
            let entry = zip.by_index_raw(i).map_err(zip_error)?;
            if entry.is_file() {
                // `enclosed_name` refuses names that climb out (`../x`) or are absolute.
                if let Some(name) = entry.enclosed_name() {
                    members.insert(name.to_string_lossy().replace('\\', "/"), Member::Zip(i));
                }
            }
        }
        Ok(Archive {
            path: path.to_path_buf(),
            members,
            zip: Some(Mutex::new(zip)),
        })
    }

    /// The archive's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The members' paths inside the archive, `/`-separated, in order.
    pub fn members(&self) -> impl Iterator<Item = &str> {
        self.members.keys().map(String::as_str)
    }

    /// Whether the archive holds `inner`.
    pub fn has(&self, inner: &str) -> bool {
        self.members.contains_key(inner)
    }

    /// Member `inner`'s bytes, when it is at most `limit` bytes.
    pub fn read(&self, inner: &str, limit: u64) -> std::io::Result<Vec<u8>> {
        let not_found = || {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("no {inner} in the archive"),
            )
        };
        let too_big = |size: u64| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{inner} is {size} bytes, more than {limit}"),
            )
        };
        match self.members.get(inner).ok_or_else(not_found)? {
            &Member::Asar { at, size } => {
                if size > limit {
                    return Err(too_big(size));
                }
                let (mut file, _) = crate::internal::fs::files::open_regular(&self.path)?;
                file.seek(SeekFrom::Start(at))?;
                let mut bytes = vec![0u8; size as usize];
                file.read_exact(&mut bytes)?;
                Ok(bytes)
            }
            Member::Unpacked(p) => {
                // Beside the archive, never outside its `.unpacked` folder (symlinks resolved).
                let real = std::fs::canonicalize(p)?;
                let dir = std::fs::canonicalize(
                    p.ancestors()
                        .find(|a| {
                            a.file_name()
                                .is_some_and(|n| n.to_string_lossy().ends_with(".asar.unpacked"))
                        })
                        .ok_or_else(not_found)?,
                )?;
                if !real.starts_with(dir) {
                    return Err(not_found());
                }
                crate::internal::fs::files::read_regular(&real, limit)
            }
            &Member::Zip(i) => {
                let zip = self.zip.as_ref().ok_or_else(not_found)?;
                let mut zip = zip.lock().unwrap_or_else(|e| e.into_inner());
                let entry = zip
                    .by_index(i)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                if entry.size() > limit {
                    return Err(too_big(entry.size()));
                }
                let mut bytes = Vec::with_capacity(entry.size() as usize);
                entry.take(limit + 1).read_to_end(&mut bytes)?;
                if bytes.len() as u64 > limit {
                    return Err(too_big(bytes.len() as u64));
                }
                Ok(bytes)
            }
        }
    }
}

/// Reads as many bytes as `buf` holds, or to the file's end.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An asar archive as `@electron/asar` lays it out (see the module's documentation).
    fn asar(files: &[(&str, &[u8])], unpacked: &[&str]) -> Vec<u8> {
        let mut tree = serde_json::json!({"files": {}});
        let mut data = Vec::new();
        for (path, bytes) in files {
            let parts: Vec<&str> = path.split('/').collect();
            let mut node = &mut tree;
            for dir in &parts[..parts.len() - 1] {
                node = node["files"]
                    .as_object_mut()
                    .unwrap()
                    .entry(dir.to_string())
                    .or_insert(serde_json::json!({"files": {}}));
            }
            let entry = if unpacked.contains(path) {
                serde_json::json!({"size": bytes.len(), "unpacked": true})
            } else {
                let e = serde_json::json!({"size": bytes.len(), "offset": data.len().to_string()});
                data.extend_from_slice(bytes);
                e
            };
            node["files"][parts[parts.len() - 1]] = entry;
        }
        let json = tree.to_string();
        let padded = json.len().div_ceil(4) * 4;
        let mut header = Vec::new();
        header.extend_from_slice(&((4 + padded) as u32).to_le_bytes());
        header.extend_from_slice(&(json.len() as u32).to_le_bytes());
        header.extend_from_slice(json.as_bytes());
        header.resize(8 + padded, 0);
        let mut out = Vec::new();
        out.extend_from_slice(&4u32.to_le_bytes());
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(&data);
        out
    }

    #[test]
    fn asar_members_are_read_in_place_and_unpacked_ones_beside() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("app.asar");
        std::fs::write(
            &p,
            asar(
                &[
                    ("out/main/index.js", b"main();\n"),
                    ("a.node", b""),
                    ("package.json", b"{}"),
                ],
                &["a.node"],
            ),
        )
        .unwrap();
        std::fs::create_dir_all(d.path().join("app.asar.unpacked")).unwrap();
        std::fs::write(d.path().join("app.asar.unpacked/a.node"), b"native").unwrap();
        let a = Archive::open(&p).unwrap();
        assert_eq!(
            a.members().collect::<Vec<_>>(),
            ["a.node", "out/main/index.js", "package.json"]
        );
        assert_eq!(a.read("out/main/index.js", 100).unwrap(), b"main();\n");
        assert_eq!(a.read("a.node", 100).unwrap(), b"native");
        assert!(a.read("nope", 100).is_err());
        assert!(a.read("out/main/index.js", 3).is_err());
    }

    /// A cut archive, a broken header: one line that says so, never a panic.
    #[test]
    fn a_bad_asar_is_said_in_one_line() {
        let d = tempfile::tempdir().unwrap();
        let whole = asar(&[("x.js", &[b'x'; 100])], &[]);
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("cut", whole[..whole.len() - 10].to_vec()),
            ("header cut", whole[..20].to_vec()),
            ("empty", Vec::new()),
            ("not json", {
                let mut b = whole.clone();
                b[16] = b'!';
                b
            }),
        ];
        for (what, bytes) in cases {
            let p = d.path().join(format!("{what}.asar"));
            std::fs::write(&p, bytes).unwrap();
            let e = Archive::open(&p).unwrap_err().to_string();
            assert!(e.contains("asar") && !e.contains('\n'), "{what}: {e}");
        }
    }
}
