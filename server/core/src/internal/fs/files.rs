//! Reading files named by untrusted input (a map's `sources`, a bundle's `sourceMappingURL`, a glob) without hanging
//! or running out of memory.
//!
//! A plain `File::open` of a FIFO blocks until a writer appears, and `fs::read` of `/dev/zero` never ends; a map can
//! name either. So every such read opens without blocking, checks on the open descriptor (not by a separate `stat`,
//! which a swap could slip past) that it is a regular file, and refuses files above a size limit before reading.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// Opens `path` for reading only if it is a regular file (symlinks followed), without blocking on FIFOs or devices.
/// The metadata comes from the open descriptor, so it describes the bytes that will be read.
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK only changes how the open of a FIFO or device behaves; reads of a regular file ignore it.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, what));
    }
    Ok((file, meta))
}

/// Reads the whole regular file at `path` if it holds at most `limit` bytes. A file that grows while it is read
/// is cut at `limit + 1` bytes and refused, so memory stays bounded whatever happens to it.
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    read_open(file, meta.len(), limit)
}

/// Reads an already opened file (see [`open_regular`]) whose size was `len`, refusing more than `limit` bytes.
pub fn read_open(file: File, len: u64, limit: u64) -> io::Result<Vec<u8>> {
    if len > limit {
        return Err(too_big(len, limit));
    }
    let mut bytes = read_whole(&file, len)?;
    // Whatever was appended since the size was taken, up to the limit (so a growing file is refused, not cut).
    file.take(limit.saturating_add(1).saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// The last `window` bytes of the regular file at `path` (all of it when it is shorter), and whether that is the
/// whole file: the one reader of a file's end (a bundle's trailing comments).
pub fn read_tail(path: &Path, window: u64) -> io::Result<(Vec<u8>, bool)> {
    let (file, meta) = open_regular(path)?;
    let from = meta.len().saturating_sub(window);
    Ok((
        read_range(&file, from, (meta.len() - from) as usize)?,
        from == 0,
    ))
}

/// `len` bytes of `file` from byte `start` (its position unchanged on Unix: `pread`; elsewhere a seek and a read).
pub fn read_range(file: &File, start: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0; len];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut bytes, start)?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek};
        let mut handle = file;
        handle.seek(io::SeekFrom::Start(start))?;
        handle.read_exact(&mut bytes)?;
    }
    Ok(bytes)
}

/// Files at least this large are read by two threads.
const PARALLEL_READ_BYTES: u64 = 16 << 20;

/// Reads the first `len` bytes of `file` (fewer if it is shorter now), from its start whatever its position, and
/// leaves its position after them. A large file is read in two halves on two threads: copying a 100 MB map out of
/// the page cache into fresh memory is mostly page faults, which the kernel serves in parallel.
pub fn read_whole(file: &File, len: u64) -> io::Result<Vec<u8>> {
    #[cfg(unix)]
    if len >= PARALLEL_READ_BYTES {
        use std::io::Seek;
        use std::os::unix::fs::FileExt;
        // Zeroed memory comes fresh from the system, untouched: its pages are faulted in by the reads.
        let mut bytes = vec![0u8; len as usize];
        let half = bytes.len() / 2;
        let (a, b) = bytes.split_at_mut(half);
        let read = |buf: &mut [u8], at: u64| -> io::Result<usize> {
            let mut done = 0;
            while done < buf.len() {
                match file.read_at(&mut buf[done..], at + done as u64) {
                    Ok(0) => break,
                    Ok(n) => done += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(done)
        };
        let (first, second) = std::thread::scope(|s| {
            let first = s.spawn(|| read(a, 0));
            let second = read(b, half as u64);
            (first.join().expect("read thread"), second)
        });
        let (first, second) = (first?, second?);
        // A file cut while it was read: only the bytes before the cut.
        let got = if first < half { first } else { half + second };
        bytes.truncate(got);
        let mut handle = file;
        handle.seek(io::SeekFrom::Start(got as u64))?;
        return Ok(bytes);
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn too_big(len: u64, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{len} bytes, above the limit of {limit}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.js");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read_regular(&p, 5).unwrap(), b"hello");
        let e = read_regular(&p, 4).unwrap_err();
        assert!(
            e.to_string().contains("5 bytes, above the limit of 4"),
            "{e}"
        );
    }

    #[test]
    fn directories_devices_and_missing_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_regular(dir.path(), u64::MAX)
            .unwrap_err()
            .to_string()
            .contains("a directory"));
        assert!(read_regular(Path::new("/dev/zero"), u64::MAX)
            .unwrap_err()
            .to_string()
            .contains("not a regular file"));
        assert_eq!(
            read_regular(&dir.path().join("nope"), 10)
                .unwrap_err()
                .kind(),
            io::ErrorKind::NotFound
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once_instead_of_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pipe.map");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        // Without O_NONBLOCK this open would wait for a writer forever.
        let e = read_regular(&p, u64::MAX).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
