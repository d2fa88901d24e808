//! A large section's checkpoints kept on disk between runs (issue 66), so that a map indexed once is not decoded
//! again when the editor reloads or a pipeline worker restarts.
//!
//! Building a section's checkpoints validates and decodes all of its `mappings`: on the real Metro build (one 50.6 MB
//! section) that pass is most of the editor's first hover. What it finds (`Built`: the checkpoints, the unsorted
//! lines, the range segments, the sources' spans, the counts) depends on nothing but the section's `mappings`, its
//! `rangeMappings` and how many sources and names it has ([`Limits`]), so it is kept under a key made of exactly
//! those, hashed with BLAKE3 (a cryptographic hash: two different `mappings` never share a file, whoever wrote them),
//! and of this format's version and the crate's. Sentry's symbolicator keeps its `SourceMapCache` files the same way.
//!
//! - **Where:** `$SOURCEMAP_LS_INDEX_CACHE` if set (`off` turns the cache off), else `$XDG_CACHE_HOME/sourcemap-ls/index`,
//!   else `~/.cache/sourcemap-ls/index`. One file per section, named by its key (`<32 hex digits>.sidx`).
//! - **Size:** at most `$SOURCEMAP_LS_INDEX_CACHE_MB` megabytes (default [`DEFAULT_LIMIT_MB`]); after each write the
//!   least recently used files go first (a file read is touched). A section whose file alone would exceed it is not
//!   kept. Sections under [`MIN_MAPPINGS_BYTES`] are never kept: they build faster than a file is read.
//! - **Written atomically:** to a new temporary file in the same folder (created, never opened if something is
//!   already there), then renamed over the name; a reader sees a whole file or none. Read only as a regular file,
//!   without blocking (a FIFO in a file's place is refused), and no longer than the size limit.
//! - **Checked when read, never trusted:** the magic, the format, the whole key, the payload's length and its BLAKE3
//!   hash, then every part against the `mappings` it is for (checkpoints strictly increasing by position and by
//!   offset, inside the text; lines and spans in range). A truncated, corrupt or foreign file is rebuilt (and written
//!   again), counted as rejected, never used. Decoding from a checkpoint stays fully checked (no `unsafe` reads
//!   anywhere in the decoder), so even a file forged by someone who can write the cache folder can make only that
//!   map's answers wrong, never the process unsafe.
//!
//! The cache is process-wide: the command line and the language server turn it on at start ([`use_cache`]); a program
//! using the library gets none unless it asks.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

use crate::internal::map::checkpoints::Checkpoint;
use crate::internal::map::compact_build::{Built, SourceSpan};
use crate::internal::map::segment::{Accumulators, Limits};

/// Bump whenever what `compact_build` finds, or how it is written here, changes meaning: a file of another format is
/// foreign and rebuilt.
const FORMAT: u32 = 1;
const MAGIC: &[u8; 8] = b"SMLSIDX\0";
/// Magic, format, reserved, key, payload length, payload hash.
const HEADER_BYTES: usize = 8 + 4 + 4 + 32 + 8 + 32;
/// Sections with fewer `mappings` bytes than this are not kept: they build quickly, and a file read, hashed and
/// checked is not free.
pub const MIN_MAPPINGS_BYTES: usize = 1 << 20;
/// The default size limit of the folder, in megabytes.
pub const DEFAULT_LIMIT_MB: u64 = 512;
const FILE_SUFFIX: &str = "sidx";

/// A folder of kept sections, with its size limit.
#[derive(Debug, Clone)]
pub struct IndexCache {
    dir: PathBuf,
    limit_bytes: u64,
}

/// What the cache did in this process (for `stats`, tests and the benchmarks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheCounts {
    /// Sections read from a file.
    pub hits: u64,
    /// Sections with no file: built, then written.
    pub misses: u64,
    /// Files found and refused (truncated, corrupt, foreign): built again and written over.
    pub rejected: u64,
    /// Files written.
    pub written: u64,
}

static CACHE: RwLock<Option<IndexCache>> = RwLock::new(None);
static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);
static REJECTED: AtomicU64 = AtomicU64::new(0);
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// Turns the process's cache on (`Some`) or off (`None`).
pub fn use_cache(cache: Option<IndexCache>) {
    *CACHE.write().unwrap_or_else(|e| e.into_inner()) = cache;
}

/// The process's cache, if on.
pub fn current() -> Option<IndexCache> {
    CACHE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// What the cache did in this process so far.
pub fn counts() -> CacheCounts {
    CacheCounts {
        hits: HITS.load(Ordering::Relaxed),
        misses: MISSES.load(Ordering::Relaxed),
        rejected: REJECTED.load(Ordering::Relaxed),
        written: WRITTEN.load(Ordering::Relaxed),
    }
}

impl IndexCache {
    /// A cache in `dir` (made when first written) of at most `limit_bytes`.
    pub fn at(dir: impl Into<PathBuf>, limit_bytes: u64) -> IndexCache {
        IndexCache {
            dir: dir.into(),
            limit_bytes,
        }
    }

    /// The cache the environment asks for (see the module documentation); `None` when turned off or when no folder
    /// can be named.
    pub fn from_env() -> Option<IndexCache> {
        let limit_mb = std::env::var("SOURCEMAP_LS_INDEX_CACHE_MB")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(DEFAULT_LIMIT_MB);
        let dir = match std::env::var_os("SOURCEMAP_LS_INDEX_CACHE") {
            Some(v) if v == "off" || v == "0" || v == "false" => return None,
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => default_dir()?,
        };
        (limit_mb > 0).then(|| IndexCache::at(dir, limit_mb.saturating_mul(1 << 20)))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, key: &[u8; 32]) -> PathBuf {
        let hex: String = key[..16].iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{hex}.{FILE_SUFFIX}"))
    }

    /// The kept section for `key`, checked against `mappings`; `Err` for a file that exists and is refused.
    pub(crate) fn get(
        &self,
        key: &[u8; 32],
        mappings: &[u8],
        limits: Limits,
    ) -> Result<Option<Built>, Refused> {
        let path = self.path_of(key);
        // A regular file only, opened without blocking (a FIFO put in its place is refused, never waited on), no
        // longer than the folder may hold.
        let (file, meta) = match crate::internal::fs::files::open_regular(&path) {
            Ok(opened) => opened,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(_) => return Err(Refused("not a regular file")),
        };
        let bytes = crate::internal::fs::files::read_open(file, meta.len(), self.limit_bytes)
            .map_err(|_| Refused("unreadable"))?;
        let built = decode(&bytes, key, mappings, limits)?;
        // Touched, so that the size limit drops the least recently used files first.
        if let Ok((f, _)) = crate::internal::fs::files::open_regular(&path) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        Ok(Some(built))
    }

    /// Keeps `built` for `key` (atomically), then trims the folder to its limit. Failures are silent: the cache is an
    /// optimisation, never a reason for an answer to fail.
    pub(crate) fn put(&self, key: &[u8; 32], built: &Built) {
        let bytes = encode(key, built);
        if bytes.len() as u64 > self.limit_bytes {
            return;
        }
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let tmp = self.dir.join(format!(
            ".tmp-{}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        // A new file, never one already there (a link planted under the temporary name is not followed).
        let written = std::fs::File::options()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| f.write_all(&bytes))
            .and_then(|()| std::fs::rename(&tmp, self.path_of(key)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
            return;
        }
        WRITTEN.fetch_add(1, Ordering::Relaxed);
        self.trim();
    }

    /// Removes the least recently used files until the folder is within its limit, and temporary files an hour old
    /// (left by a process killed while writing).
    fn trim(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = std::time::SystemTime::now();
        let mut files: Vec<(std::time::SystemTime, u64, PathBuf)> = Vec::new();
        for e in entries.flatten() {
            let Ok(meta) = e.metadata() else { continue };
            let path = e.path();
            let modified = meta.modified().unwrap_or(now);
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(".tmp-") {
                if now
                    .duration_since(modified)
                    .is_ok_and(|d| d.as_secs() > 3600)
                {
                    let _ = std::fs::remove_file(&path);
                }
                continue;
            }
            if meta.is_file() && path.extension().is_some_and(|x| x == FILE_SUFFIX) {
                files.push((modified, meta.len(), path));
            }
        }
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        files.sort();
        for (_, len, path) in files {
            if total <= self.limit_bytes {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }
}

fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("sourcemap-ls").join("index"))
}

/// Why a file was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused(pub &'static str);

/// The key of a section: everything its [`Built`] depends on, and this format.
pub(crate) fn key(mappings: &[u8], limits: Limits, range_mappings: Option<&[u8]>) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(MAGIC);
    h.update(&FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&[0]);
    h.update(&limits.sources.to_le_bytes());
    h.update(&limits.names.to_le_bytes());
    match range_mappings {
        Some(r) => {
            h.update(&[1]);
            h.update(&(r.len() as u64).to_le_bytes());
            h.update(r);
        }
        None => {
            h.update(&[0]);
        }
    }
    h.update(&(mappings.len() as u64).to_le_bytes());
    h.update(mappings);
    *h.finalize().as_bytes()
}

/// A section's build from the cache when kept, else built by `build` (and kept when it succeeds). Small sections and
/// a process without a cache go straight to `build`.
pub(crate) fn built_or<E>(
    mappings: &[u8],
    limits: Limits,
    range_mappings: Option<&[u8]>,
    build: impl FnOnce() -> Result<Built, E>,
) -> Result<Built, E> {
    if mappings.len() < MIN_MAPPINGS_BYTES {
        return build();
    }
    let Some(cache) = current() else {
        return build();
    };
    let key = key(mappings, limits, range_mappings);
    match cache.get(&key, mappings, limits) {
        Ok(Some(built)) => {
            HITS.fetch_add(1, Ordering::Relaxed);
            return Ok(built);
        }
        Ok(None) => MISSES.fetch_add(1, Ordering::Relaxed),
        Err(_) => REJECTED.fetch_add(1, Ordering::Relaxed),
    };
    let built = build()?;
    cache.put(&key, &built);
    Ok(built)
}

/// The file for `built`.
pub(crate) fn encode(key: &[u8; 32], built: &Built) -> Vec<u8> {
    file_with_payload(key, &payload(built))
}

/// What follows the header: the build's parts, little-endian.
fn payload(built: &Built) -> Vec<u8> {
    let mut p = Vec::with_capacity(64 + built.checkpoints.len() * 28);
    let u32s = |p: &mut Vec<u8>, v: u32| p.extend_from_slice(&v.to_le_bytes());
    let u64s = |p: &mut Vec<u8>, v: u64| p.extend_from_slice(&v.to_le_bytes());
    u32s(&mut p, built.lines);
    u64s(&mut p, built.segments);
    match built.last_position {
        Some((l, c)) => {
            p.push(1);
            u32s(&mut p, l);
            u32s(&mut p, c);
        }
        None => p.push(0),
    }
    u64s(&mut p, built.checkpoints.len() as u64);
    for c in &built.checkpoints {
        for v in [
            c.offset,
            c.line,
            c.column,
            c.accumulators.source,
            c.accumulators.original_line,
            c.accumulators.original_column,
            c.accumulators.name,
        ] {
            u32s(&mut p, v);
        }
    }
    u64s(&mut p, built.unsorted_lines.len() as u64);
    for &l in &built.unsorted_lines {
        u32s(&mut p, l);
    }
    u64s(&mut p, built.range_segments.len() as u64);
    for &(l, i) in &built.range_segments {
        u32s(&mut p, l);
        u32s(&mut p, i);
    }
    match &built.source_spans {
        Some(spans) => {
            p.push(1);
            u64s(&mut p, spans.len() as u64);
            for s in spans {
                u32s(&mut p, s.first);
                u32s(&mut p, s.last);
            }
        }
        None => p.push(0),
    }
    p
}

/// Reads a little-endian payload, refusing anything short.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Refused> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(Refused("truncated"))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, Refused> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, Refused> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> Result<u64, Refused> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    /// A count of items of `size` bytes each, no more than the bytes left can hold (a count never allocates more
    /// than the file is long).
    fn count(&mut self, size: usize) -> Result<usize, Refused> {
        let n = self.u64()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n.checked_mul(size as u64).is_none_or(|b| b > left) {
            return Err(Refused("truncated"));
        }
        Ok(n as usize)
    }
    fn flag(&mut self) -> Result<bool, Refused> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Refused("corrupt")),
        }
    }
}

/// A file holding `payload` under `key`, with a correct header and hash (for the fuzz target, which feeds payloads
/// that reach the checks past the hash).
pub fn file_with_payload(key: &[u8; 32], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(blake3::hash(payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

/// The key of a section (see [`IndexCache`]): public for the fuzz target and the tests.
pub fn key_of(mappings: &[u8], limits: Limits, range_mappings: Option<&[u8]>) -> [u8; 32] {
    key(mappings, limits, range_mappings)
}

/// What a build of `mappings` keeps (the file's part after its header), `None` when `mappings` is invalid: the fuzz
/// target mutates it.
pub fn payload_of(mappings: &[u8], limits: Limits) -> Option<Vec<u8>> {
    crate::internal::map::compact_build::build(mappings, limits, &[])
        .ok()
        .map(|b| payload(&b))
}

/// Whether `bytes` is accepted as the kept section of `mappings` (see the module documentation for every check).
pub fn accepts(bytes: &[u8], mappings: &[u8], limits: Limits) -> Result<(), Refused> {
    decode(bytes, &key(mappings, limits, None), mappings, limits).map(|_| ())
}

pub(crate) fn decode(
    bytes: &[u8],
    key: &[u8; 32],
    mappings: &[u8],
    limits: Limits,
) -> Result<Built, Refused> {
    if bytes.len() < HEADER_BYTES {
        return Err(Refused("truncated"));
    }
    if &bytes[..8] != MAGIC {
        return Err(Refused("not a sourcemap-ls index file"));
    }
    if bytes[8..12] != FORMAT.to_le_bytes() {
        return Err(Refused("another format"));
    }
    if &bytes[16..48] != key {
        return Err(Refused("another section's"));
    }
    let len = u64::from_le_bytes(bytes[48..56].try_into().expect("8"));
    let payload = &bytes[HEADER_BYTES..];
    if payload.len() as u64 != len {
        return Err(Refused("truncated"));
    }
    if blake3::hash(payload).as_bytes() != &bytes[56..88] {
        return Err(Refused("corrupt"));
    }
    let mut r = Reader {
        bytes: payload,
        at: 0,
    };
    let corrupt = Refused("corrupt");
    let lines = r.u32()?;
    let segments = r.u64()?;
    let last_position = if r.flag()? {
        Some((r.u32()?, r.u32()?))
    } else {
        None
    };
    let n = r.count(28)?;
    // In one slice, 28 bytes a checkpoint (a Metro-scale section has 400,000).
    let checkpoints: Vec<Checkpoint> = r
        .take(n * 28)?
        .chunks_exact(28)
        .map(|c| {
            let w = |i: usize| u32::from_le_bytes(c[i * 4..i * 4 + 4].try_into().expect("4"));
            Checkpoint {
                offset: w(0),
                line: w(1),
                column: w(2),
                accumulators: Accumulators {
                    source: w(3),
                    original_line: w(4),
                    original_column: w(5),
                    name: w(6),
                },
            }
        })
        .collect();
    let n = r.count(4)?;
    let unsorted_lines = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()?;
    let n = r.count(8)?;
    let range_segments = (0..n)
        .map(|_| Ok((r.u32()?, r.u32()?)))
        .collect::<Result<Vec<_>, Refused>>()?;
    let source_spans = if r.flag()? {
        let n = r.count(8)?;
        Some(
            (0..n)
                .map(|_| {
                    Ok(SourceSpan {
                        first: r.u32()?,
                        last: r.u32()?,
                    })
                })
                .collect::<Result<Vec<_>, Refused>>()?,
        )
    } else {
        None
    };
    if r.at != payload.len() {
        return Err(corrupt);
    }
    // Every part against the text it is for: what a lookup relies on holds.
    // (The line count is not counted again: a pass over the text as long as the hash's, for what the hash holds.)
    let text_len = mappings.len() as u64;
    if lines == 0
        || u64::from(lines) > text_len + 1
        || segments < checkpoints.len() as u64
        || last_position.is_some_and(|(l, _)| l >= lines)
        || (segments > 0) != last_position.is_some()
    {
        return Err(corrupt);
    }
    // A checkpoint's accumulators index the section's sources and names, as a build leaves them.
    let in_range = |value: u32, len: u32| value < len.max(1);
    let in_text = |c: &Checkpoint| {
        u64::from(c.offset) < text_len
            && c.line < lines
            && in_range(c.accumulators.source, limits.sources)
            && in_range(c.accumulators.name, limits.names)
    };
    if !checkpoints.iter().all(in_text)
        || !checkpoints.windows(2).all(|w| {
            (w[0].line, w[0].column) < (w[1].line, w[1].column) && w[0].offset < w[1].offset
        })
        || !unsorted_lines.windows(2).all(|w| w[0] < w[1])
        || unsorted_lines.iter().any(|&l| l >= lines)
        || !range_segments.windows(2).all(|w| w[0] < w[1])
        || range_segments.iter().any(|&(l, _)| l >= lines)
        || source_spans.as_ref().is_some_and(|spans| {
            spans
                .iter()
                .any(|s| !s.is_empty() && (u64::from(s.last) >= text_len || s.first > s.last))
        })
    {
        return Err(corrupt);
    }
    Ok(Built {
        checkpoints,
        last_position,
        unsorted_lines,
        range_segments,
        lines,
        segments,
        source_spans,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internal::map::compact::CompactMappings;
    use crate::internal::map::compact_build;

    const LIMITS: Limits = Limits {
        sources: 3,
        names: 2,
    };

    /// A section of `lines` lines, a few segments each, crossing sources and names.
    fn mappings(lines: usize) -> Vec<u8> {
        let mut text = Vec::new();
        let mut rng = 7u64;
        let (mut src, mut name) = (0i64, 0i64);
        for l in 0..lines {
            if l > 0 {
                text.push(b';');
            }
            for s in 0..(l % 7) {
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1);
                if s > 0 {
                    text.push(b',');
                }
                let step = (rng >> 40) as i64 % 40 + 1;
                crate::internal::map::vlq::encode_signed(step, &mut text);
                let to_src = (rng >> 20) as i64 % 3;
                crate::internal::map::vlq::encode_signed(to_src - src, &mut text);
                src = to_src;
                crate::internal::map::vlq::encode_signed(1, &mut text);
                crate::internal::map::vlq::encode_signed(0, &mut text);
                if rng.is_multiple_of(3) {
                    let to_name = (rng >> 10) as i64 % 2;
                    crate::internal::map::vlq::encode_signed(to_name - name, &mut text);
                    name = to_name;
                }
            }
        }
        text
    }

    fn built(text: &[u8]) -> Built {
        compact_build::build(text, LIMITS, &[]).expect("valid")
    }

    fn same(a: &Built, b: &Built) -> bool {
        a.checkpoints == b.checkpoints
            && a.last_position == b.last_position
            && a.unsorted_lines == b.unsorted_lines
            && a.range_segments == b.range_segments
            && a.lines == b.lines
            && a.segments == b.segments
            && a.source_spans == b.source_spans
    }

    #[test]
    fn a_kept_section_reads_back_the_same_and_answers_the_same() {
        let text = mappings(20_000);
        let b = built(&text);
        let key = key(&text, LIMITS, None);
        let file = encode(&key, &b);
        let back = decode(&file, &key, &text, LIMITS).expect("its own file");
        assert!(same(&b, &back));
        let (a, c) = (
            CompactMappings::from_built(built(&text)),
            CompactMappings::from_built(back),
        );
        for line in (0..20_000).step_by(37) {
            for col in [0, 5, 40, 1000] {
                assert_eq!(
                    a.lookup(
                        &text,
                        line,
                        col,
                        crate::internal::map::compact::Bias::GreatestLowerBound
                    ),
                    c.lookup(
                        &text,
                        line,
                        col,
                        crate::internal::map::compact::Bias::GreatestLowerBound
                    )
                );
            }
        }
    }

    /// What a build finds is kept under [`FORMAT`]: when `compact_build` places checkpoints otherwise (or this file
    /// writes them otherwise), files of the old format would be read as the new one's. This holds the payload of
    /// two fixed sections (one pass, and stretches: over twice `STRETCH_BYTES`) to the hashes recorded with the
    /// current format. It fails when they change: bump `FORMAT`, then record the new hashes here.
    #[test]
    fn the_format_is_bumped_when_what_a_build_finds_changes() {
        let small = mappings(3_000);
        let large = mappings(600_000);
        assert!(
            large.len() > 2 * compact_build::STRETCH_BYTES,
            "{}",
            large.len()
        );
        let hash = |text: &[u8]| blake3::hash(&payload(&built(text))).to_hex().to_string();
        assert_eq!(
            (FORMAT, hash(&small).as_str(), hash(&large).as_str()),
            (
                1,
                "47d77be65d2df27d4f8053eae7b7e1ddedd53e567f6039a03397a701ea5c7824",
                "d5a4d18120fb2c8c36370831cd842df312d615eb284ad351d9b8de0fc8f0683f"
            ),
            "what a build finds changed: bump FORMAT in index_cache.rs and record the new hashes"
        );
    }

    #[test]
    fn a_truncated_corrupt_or_foreign_file_is_refused() {
        let text = mappings(5_000);
        let key = key(&text, LIMITS, None);
        let file = encode(&key, &built(&text));
        for cut in [0, 7, HEADER_BYTES - 1, HEADER_BYTES, file.len() - 1] {
            assert!(
                decode(&file[..cut], &key, &text, LIMITS).is_err(),
                "cut at {cut}"
            );
        }
        for at in [0, 9, 20, 50, 60, HEADER_BYTES + 3, file.len() - 2] {
            let mut bad = file.clone();
            bad[at] ^= 0x40;
            assert!(
                decode(&bad, &key, &text, LIMITS).is_err(),
                "flipped at {at}"
            );
        }
        // Another section's key, the same text under other limits, another text under this key.
        let other = key_of_limits(
            &text,
            Limits {
                sources: 4,
                names: 2,
            },
        );
        assert_ne!(other, key);
        assert_eq!(
            decode(&file, &other, &text, LIMITS).err(),
            Some(Refused("another section's"))
        );
        let shorter = mappings(4_000);
        assert!(decode(&file, &key, &shorter, LIMITS).is_err());
    }

    fn key_of_limits(text: &[u8], limits: Limits) -> [u8; 32] {
        key(text, limits, None)
    }

    #[test]
    fn the_folder_keeps_to_its_limit_and_rebuilds_what_it_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let texts: Vec<Vec<u8>> = (0..4).map(|i| mappings(3_000 + i * 10)).collect();
        let one = encode(&key(&texts[0], LIMITS, None), &built(&texts[0])).len() as u64;
        // Room for two files and a half.
        let cache = IndexCache::at(dir.path(), one * 5 / 2);
        for t in &texts {
            let k = key(t, LIMITS, None);
            assert!(matches!(cache.get(&k, t, LIMITS), Ok(None)));
            cache.put(&k, &built(t));
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let kept: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert_eq!(kept.len(), 2, "{kept:?}");
        // The last two are the ones kept.
        for (i, t) in texts.iter().enumerate() {
            let k = key(t, LIMITS, None);
            assert_eq!(cache.get(&k, t, LIMITS).unwrap().is_some(), i >= 2);
        }
        // A truncated file is refused, not trusted.
        let k = key(&texts[3], LIMITS, None);
        let path = cache.path_of(&k);
        let whole = std::fs::read(&path).unwrap();
        std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
        assert!(cache.get(&k, &texts[3], LIMITS).is_err());
        // A hit is touched (the size limit keeps what is used); a FIFO put in a file's place is refused at once.
        let k2 = key(&texts[2], LIMITS, None);
        let path2 = cache.path_of(&k2);
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path2)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(cache.get(&k2, &texts[2], LIMITS).unwrap().is_some());
        let touched = std::fs::metadata(&path2).unwrap().modified().unwrap();
        assert!(touched > old + std::time::Duration::from_secs(1800));
        #[cfg(unix)]
        {
            std::fs::remove_file(&path).unwrap();
            let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            assert_eq!(
                cache.get(&k, &texts[3], LIMITS).err(),
                Some(Refused("not a regular file"))
            );
        }
    }
}
