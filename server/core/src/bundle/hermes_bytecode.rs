//! Hermes bytecode files, as far as telling which compile a map is for: the file header and the function table.
//!
//! React Native's release build compiles Metro's bundle with `hermesc -O -emit-binary -output-source-map`; the
//! bytecode then replaces the JavaScript under the bundle's name (Gradle's `BundleHermesCTask.kt`:
//! `bytecodeFile.moveTo(bundleFile)`). A bytecode stack frame (`address at index.android.bundle:1:31346`) gives a
//! **virtual offset**: the offset of the instruction in its function plus the function's virtual offset, the sum of
//! the bytecode sizes of every function before it in function order (hermes v0.12.0 `lib/VM/JSError.cpp:615-642`,
//! `BCProviderBase::getVirtualOffsetForFunction` in `lib/BCGen/HBC/BytecodeDataProvider.cpp:342-350`). hermesc writes
//! the same sums into its map as `x_hermes_function_offsets` (`{"<segmentID>": [v0, v1, …]}`,
//! `BytecodeModule::populateSourceMap`, `lib/BCGen/HBC/Bytecode.cpp:29-41`), and `composeSourceMaps` copies them into
//! the composed map. The map's segments are at virtual offsets, so a map of another compile of the same bundle still
//! answers every address, wrongly: its functions start elsewhere. Its offsets, read against the file's function
//! table, say so ([`judge_map`]): equal for the compile's own map, different for every other
//! (`fixtures/hermes-compile`: `-O0`, `-g`, an edited bundle).
//!
//! Two layouts, little-endian and packed (`include/hermes/BCGen/HBC/BytecodeFileFormat.h` at each tag; the whole
//! comparison, with every line cited and checked against files the shipped compilers wrote, is in
//! `fixtures/hermes-rn/README.md`):
//! - **Legacy Hermes, versions 89–96** (hermes v0.12.0 `BytecodeVersion.h:23` = 89; React Native 0.70–0.83 ship 89,
//!   90, 94 and 96, the layout unchanged but for the debug-info header). `BytecodeFileHeader` (:70-98, 128 bytes):
//!   `magic` u64 at 0 (`MAGIC`, :27), `version` u32 at 8, `sourceHash` 20 bytes at 12, then u32s: `fileLength` 32,
//!   `globalCodeIndex` 36, `functionCount` 40, …, `segmentID` 92. The function headers follow at 128:
//!   `functionCount` × `SmallFuncHeader` (:220-352, 16 bytes), bit-fields from the low bit: word 0
//!   `offset:25 | paramCount:7`, word 1 `bytecodeSizeInBytes:15 | functionName:17`, word 2 `infoOffset:25 |
//!   frameSize:7`, then three bytes and the flags byte (bit 5 `overflowed`). An overflowed small header gives the
//!   file offset of the full `FunctionHeader` as `(infoOffset << 16) | (offset & 0xffff)` (`getLargeHeaderOffset`,
//!   :322-351): seven u32s (`bytecodeSizeInBytes` at +8) and three bytes, 31 in all.
//! - **Hermes V1, versions 98 and 99** (hermes-compiler `250829098.x`, React Native 0.84–0.87, tag
//!   `hermes-v250829098.0.16`; `260318099.x`, React Native 0.88, tag `hermes-v260318099.0.1`). The file header is
//!   still 128 bytes, with `numStringSwitchImms` new at 92 and `segmentID` moved to 96 (:74-103). `SmallFuncHeader`
//!   is 12 bytes (:255-270, `static_assert` :387): word 0 `offset:25 | …`, word 1 `bytecodeSizeInBytes:14 |
//!   functionName:8 | …`, three bytes, the flags byte at 11 (bit 5 `overflowed`, :228). An overflowed header (the
//!   rule, not the exception: any function whose name's string id is 256 or more) gives `(functionName << 24) |
//!   (offset & 0xffffff)` (:378-384), and its other bits are zero; the full header has `bytecodeSizeInBytes` at +12
//!   and is 37 bytes in 98, 36 in 99 (`NumCacheNewObject` removed, commit 7193d4485).
//!
//! Versions 97 and 100, and development builds of V1 that wrote other layouts under 98, were never shipped; any
//! version outside these is refused with its number ([`BytecodeError::UnknownVersion`]), never read as if it were
//! another. A table read under a version must also hold together (every full header after the table, 4-aligned,
//! as the compiler writes them; every function's code inside the file), or it is refused: a layout guessed is a
//! wrong verdict.

use std::collections::HashMap;

use crate::map::index::SourceMapIndex;
use crate::trace::hermes_crash::{function_offsets, HermesCrashError};

/// Hermes' magic number, the file's first 8 bytes little-endian (`MAGIC`, `BytecodeFileFormat.h:27`).
pub const MAGIC: u64 = 0x1F19_03C1_03BC_1FC6;

/// The bytecode versions whose layout this reader knows: the legacy layout's and Hermes V1's (see the module).
pub const KNOWN_VERSIONS: &str = "89–96, 98 and 99";

/// Bytes of the file header (`sizeof(BytecodeFileHeader)`), in every known version.
const HEADER_BYTES: usize = 128;
/// The flags bit of an overflowed small header (`FunctionHeaderFlag::overflowed`), in every known version.
const OVERFLOWED: u8 = 1 << 5;

/// Where a version keeps what this reader needs (see the module for each number's source).
#[derive(Debug, Clone, Copy)]
struct Layout {
    segment_at: usize,
    small_bytes: usize,
    flags_at: usize,
    large_bytes: usize,
    large_size_at: usize,
    /// Hermes V1: the size in word 1's low 14 bits, the full header at `(functionName << 24) | offset`.
    v1: bool,
}

impl Layout {
    fn of(version: u32) -> Option<Layout> {
        let legacy = Layout {
            segment_at: 92,
            small_bytes: 16,
            flags_at: 15,
            large_bytes: 31,
            large_size_at: 8,
            v1: false,
        };
        let v1 = Layout {
            segment_at: 96,
            small_bytes: 12,
            flags_at: 11,
            large_bytes: 37,
            large_size_at: 12,
            v1: true,
        };
        match version {
            89..=96 => Some(legacy),
            98 => Some(v1),
            99 => Some(Layout {
                large_bytes: 36,
                ..v1
            }),
            _ => None,
        }
    }

    /// A small header's code offset, size and (when overflowed) full header's file offset.
    fn small(&self, h: &[u8]) -> (u32, u32, Option<u64>) {
        let (w0, w1) = (u32_at(h, 0), u32_at(h, 4));
        let overflowed = h[self.flags_at] & OVERFLOWED != 0;
        if self.v1 {
            let large = (u64::from((w1 >> 14) & 0xff) << 24) | u64::from(w0 & 0xff_ffff);
            (w0 & 0x1ff_ffff, w1 & 0x3fff, overflowed.then_some(large))
        } else {
            let large = (u64::from(u32_at(h, 8) & 0x1ff_ffff) << 16) | u64::from(w0 & 0xffff);
            (w0 & 0x1ff_ffff, w1 & 0x7fff, overflowed.then_some(large))
        }
    }
}

/// Whether `bytes` starts with Hermes' magic number.
pub fn is_hermes_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC.to_le_bytes())
}

/// Why a file could not be read as Hermes bytecode. The messages are the ones users see.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BytecodeError {
    /// The file does not start with Hermes' magic number.
    #[error("not Hermes bytecode (no Hermes magic number)")]
    NotBytecode,
    /// The file is another bytecode version, whose layout is not known here.
    #[error(
        "unknown bytecode version {0} (this reader knows versions {KNOWN_VERSIONS}: what React Native 0.70–0.88 \
         ship)"
    )]
    UnknownVersion(u32),
    /// The function table read under the file's version does not hold together: not the layout shipped with that
    /// number (a development build of Hermes).
    #[error("the bytecode's function table does not hold together as version {version}'s: {why}")]
    Inconsistent {
        /// The file's version.
        version: u32,
        /// What did not hold.
        why: String,
    },
    /// The file ends before a part its header says it has.
    #[error("the bytecode file is cut short: {what} needs {needed} bytes, the file has {len}")]
    TooShort {
        /// What was being read.
        what: String,
        /// The bytes it needs from the file's start.
        needed: u64,
        /// The file's length.
        len: usize,
    },
}

/// What a bytecode file says of its functions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bytecode {
    /// The file's bytecode version (one of [`KNOWN_VERSIONS`]: others are refused).
    pub version: u32,
    /// SHA-1 of the JavaScript hermesc compiled (`sourceHash`): the Metro bundle's, not the compile's.
    pub source_hash: [u8; 20],
    /// The segment (`segmentID`): the key of the map's `x_hermes_function_offsets`, and a frame's line − 1.
    pub segment: u32,
    /// The global code's function index (`globalCodeIndex`).
    pub global_code_index: u32,
    /// Each function's `bytecodeSizeInBytes`, in function order (opcodes only: no jump tables, no alignment).
    pub sizes: Vec<u32>,
}

impl Bytecode {
    /// Each function's virtual offset: the sum of the sizes of the functions before it, in function order, as
    /// `BCProviderBase::getVirtualOffsetForFunction` computes it and hermesc writes it into the map.
    pub fn virtual_offsets(&self) -> Vec<u32> {
        let mut at = 0u32;
        self.sizes
            .iter()
            .map(|&size| {
                let start = at;
                at = at.saturating_add(size);
                start
            })
            .collect()
    }
}

/// A little-endian u32 at `at` (the caller checked the length).
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

/// Reads the header and the function table of a bytecode file of a known version.
pub fn read_bytecode(bytes: &[u8]) -> Result<Bytecode, BytecodeError> {
    if !is_hermes_bytecode(bytes) {
        return Err(BytecodeError::NotBytecode);
    }
    let short = |what: String, needed: u64| BytecodeError::TooShort {
        what,
        needed,
        len: bytes.len(),
    };
    if bytes.len() < 12 {
        return Err(short("the version".into(), 12));
    }
    let version = u32_at(bytes, 8);
    let layout = Layout::of(version).ok_or(BytecodeError::UnknownVersion(version))?;
    if bytes.len() < HEADER_BYTES {
        return Err(short("the file header".into(), HEADER_BYTES as u64));
    }
    let inconsistent = |why: String| BytecodeError::Inconsistent { version, why };
    let function_count = u32_at(bytes, 40);
    let table_end = HEADER_BYTES as u64 + u64::from(function_count) * layout.small_bytes as u64;
    if (bytes.len() as u64) < table_end {
        return Err(short(
            format!("the function table ({function_count} functions)"),
            table_end,
        ));
    }
    let mut sizes = Vec::with_capacity(function_count as usize);
    for i in 0..function_count as usize {
        let at = HEADER_BYTES + i * layout.small_bytes;
        let (offset, size, large) = layout.small(&bytes[at..at + layout.small_bytes]);
        let (offset, size) = match large {
            None => (offset, size),
            Some(large) => {
                let end = large + layout.large_bytes as u64;
                if (bytes.len() as u64) < end {
                    return Err(short(format!("function {i}'s large header"), end));
                }
                // The writer puts full headers after the table, 4-aligned (`BytecodeStream.cpp`,
                // `serializeFunctionInfo`): elsewhere, the small header was not read as its version writes it.
                if large < table_end || !large.is_multiple_of(4) {
                    return Err(inconsistent(format!(
                        "function {i}'s full header would be at {large}, not a place the compiler writes one"
                    )));
                }
                let large = large as usize;
                (
                    u32_at(bytes, large),
                    u32_at(bytes, large + layout.large_size_at),
                )
            }
        };
        if u64::from(offset) + u64::from(size) > bytes.len() as u64 {
            return Err(inconsistent(format!(
                "function {i}'s code ({size} bytes at {offset}) runs past the file's end ({})",
                bytes.len()
            )));
        }
        sizes.push(size);
    }
    Ok(Bytecode {
        version,
        source_hash: bytes[12..32].try_into().expect("twenty bytes"),
        segment: u32_at(bytes, layout.segment_at),
        global_code_index: u32_at(bytes, 36),
        sizes,
    })
}

/// How a map's `x_hermes_function_offsets` compare with a bytecode file's function table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BytecodeFit {
    /// The file's segment, whose offsets the map was read for.
    pub segment: u32,
    /// Functions in the file.
    pub functions: usize,
    /// Why the map is not this file's; `None` when its offsets are the file's, every one.
    pub mismatch: Option<BytecodeMismatch>,
}

/// Why a map does not describe a bytecode file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BytecodeMismatch {
    /// The map has no `x_hermes_function_offsets`: a map of JavaScript (Metro's packager map, any bundler's).
    NoFunctionOffsets,
    /// The map's offsets have no entry for the file's segment.
    NoSegment {
        /// The file's segment.
        segment: u32,
        /// The segments the map has offsets for.
        has: Vec<u32>,
    },
    /// The first function whose offset differs, or that one side lacks.
    Offsets {
        /// Its index.
        function: usize,
        /// Where it starts in the file (virtual offset); `None`: the file has no such function.
        in_file: Option<u32>,
        /// Where the map says it starts; `None`: the map lists no such function.
        in_map: Option<u32>,
        /// Functions the map lists.
        map_functions: usize,
    },
}

impl BytecodeFit {
    /// Whether the map's offsets are the file's.
    pub fn fits(&self) -> bool {
        self.mismatch.is_none()
    }

    /// One paragraph: the map is (or is not) this compile's, the first evidence, and the way out.
    pub fn message(&self) -> String {
        let Some(mismatch) = &self.mismatch else {
            return format!(
                "the map is this compile's: its x_hermes_function_offsets are this bytecode's function table \
                 ({} functions of segment {})",
                self.functions, self.segment
            );
        };
        match mismatch {
            BytecodeMismatch::NoFunctionOffsets => "this map describes JavaScript (no x_hermes_function_offsets), \
                 not this bytecode: use the map hermesc wrote (composed: compose the packager's and the compiler's \
                 maps with react-native's compose-source-maps; or give the two maps together)"
                .to_string(),
            BytecodeMismatch::NoSegment { segment, has } => format!(
                "the map is another file's: this bytecode is segment {segment}, and the map's \
                 x_hermes_function_offsets has offsets for segment{} {} only: use the map hermesc wrote for this file",
                if has.len() == 1 { "" } else { "s" },
                has.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            ),
            BytecodeMismatch::Offsets {
                function,
                in_file,
                in_map,
                map_functions,
            } => {
                let evidence = match (in_file, in_map) {
                    (Some(f), Some(m)) => format!(
                        "function {function} starts at bytecode offset {f} in this file, {m} in the map"
                    ),
                    (Some(f), None) => format!(
                        "function {function} starts at bytecode offset {f} in this file, and the map lists only \
                         {map_functions} functions"
                    ),
                    (None, Some(m)) => format!(
                        "the map lists a function {function} (at bytecode offset {m}), this file has only {} functions",
                        self.functions
                    ),
                    (None, None) => format!("function {function} differs"),
                };
                let counts = if *map_functions != self.functions && in_file.is_some() && in_map.is_some() {
                    format!(" ({map_functions} functions in the map, {} in this file)", self.functions)
                } else {
                    String::new()
                };
                format!(
                    "the map is another compile's: {evidence}{counts}, so its answers would be other code's. Use the \
                     map of the hermesc run that wrote this file (the composed map of the same build)"
                )
            }
        }
    }
}

/// Compares the map's `x_hermes_function_offsets` for the file's segment with the file's virtual offsets. `Err`:
/// the map's offsets cannot be read.
pub fn judge_map(
    bytecode: &Bytecode,
    index: &SourceMapIndex,
) -> Result<BytecodeFit, HermesCrashError> {
    let offsets = match function_offsets(index) {
        Ok(offsets) => Some(offsets),
        Err(HermesCrashError::NoFunctionOffsets) => None,
        Err(e) => return Err(e),
    };
    Ok(judge_offsets(bytecode, offsets.as_ref()))
}

/// [`judge_map`] on the map's offsets by segment (`None`: the map has none).
fn judge_offsets(bytecode: &Bytecode, offsets: Option<&HashMap<u32, Vec<u32>>>) -> BytecodeFit {
    let fit = |mismatch| BytecodeFit {
        segment: bytecode.segment,
        functions: bytecode.sizes.len(),
        mismatch,
    };
    let Some(offsets) = offsets else {
        return fit(Some(BytecodeMismatch::NoFunctionOffsets));
    };
    let Some(in_map) = offsets.get(&bytecode.segment) else {
        let mut has: Vec<u32> = offsets.keys().copied().collect();
        has.sort_unstable();
        return fit(Some(BytecodeMismatch::NoSegment {
            segment: bytecode.segment,
            has,
        }));
    };
    let in_file = bytecode.virtual_offsets();
    let first = (0..in_file.len().max(in_map.len())).find(|&i| in_file.get(i) != in_map.get(i));
    fit(first.map(|function| BytecodeMismatch::Offsets {
        function,
        in_file: in_file.get(function).copied(),
        in_map: in_map.get(function).copied(),
        map_functions: in_map.len(),
    }))
}

/// A legacy-layout (89–96) bytecode file made for tests: the header (`version`, `segment`), then one small function
/// header per size (a size of 32 768 or more goes to a large header after the table, 4-aligned, as hermesc writes one
/// that overflows), then each function's "bytecode".
#[cfg(test)]
pub(crate) fn synthetic(version: u32, segment: u32, sizes: &[u32]) -> Vec<u8> {
    const SMALL: usize = 16;
    const LARGE: usize = 31;
    let table_end = HEADER_BYTES + sizes.len() * SMALL;
    let mut b = vec![0u8; table_end];
    b[..8].copy_from_slice(&MAGIC.to_le_bytes());
    b[8..12].copy_from_slice(&version.to_le_bytes());
    b[40..44].copy_from_slice(&(sizes.len() as u32).to_le_bytes());
    b[92..96].copy_from_slice(&segment.to_le_bytes());
    let mut large_at = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        if size >= 1 << 15 {
            while !b.len().is_multiple_of(4) {
                b.push(0);
            }
            large_at.push((i, b.len()));
            b.extend_from_slice(&[0u8; LARGE]);
        }
    }
    let mut code = b.len() as u32;
    for (i, &size) in sizes.iter().enumerate() {
        let at = HEADER_BYTES + i * SMALL;
        match large_at.iter().find(|(j, _)| *j == i) {
            None => {
                // offset | paramCount 3 << 25; size | functionName 7 << 15; infoOffset | frameSize.
                b[at..at + 4].copy_from_slice(&(code | 3 << 25).to_le_bytes());
                b[at + 4..at + 8].copy_from_slice(&(size | 7 << 15).to_le_bytes());
                b[at + 8..at + 12].copy_from_slice(&(0x55u32 | 9 << 25).to_le_bytes());
                b[at + 15] = 0b1_0100; // strictMode, hasDebugInfo: not overflowed
            }
            Some(&(_, large)) => {
                b[large..large + 4].copy_from_slice(&code.to_le_bytes());
                b[large + 8..large + 12].copy_from_slice(&size.to_le_bytes());
                b[at..at + 4].copy_from_slice(&(large as u32 & 0xffff).to_le_bytes());
                b[at + 8..at + 12].copy_from_slice(&(large as u32 >> 16).to_le_bytes());
                b[at + 15] = OVERFLOWED;
            }
        }
        code += size;
    }
    b.resize(code as usize, 0xAA);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(version: u32, segment: u32, sizes: &[u32]) -> Vec<u8> {
        synthetic(version, segment, sizes)
    }

    #[test]
    fn reads_sizes_and_sums_them_into_virtual_offsets() {
        let b = read_bytecode(&file(89, 0, &[10, 0, 32_767, 5])).unwrap();
        assert_eq!(b.sizes, [10, 0, 32_767, 5]);
        assert_eq!(b.virtual_offsets(), [0, 10, 10, 32_777]);
        assert_eq!((b.version, b.segment), (89, 0));
    }

    #[test]
    fn an_overflowed_function_is_read_from_its_large_header() {
        let b = read_bytecode(&file(89, 3, &[4, 201_055, 6])).unwrap();
        assert_eq!(b.sizes, [4, 201_055, 6]);
        assert_eq!(b.virtual_offsets(), [0, 4, 201_059]);
        assert_eq!(b.segment, 3);
    }

    #[test]
    fn a_file_cut_short_says_what_is_missing() {
        let whole = file(89, 0, &[1, 2, 3]);
        let err = read_bytecode(&whole[..100]).unwrap_err();
        assert!(
            matches!(err, BytecodeError::TooShort { needed: 128, .. }),
            "{err}"
        );
        let err = read_bytecode(&whole[..150]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the bytecode file is cut short: the function table (3 functions) needs 176 bytes, the file has 150"
        );
        assert!(matches!(
            read_bytecode(&whole[..10]),
            Err(BytecodeError::TooShort { .. })
        ));
        // A large header past the end.
        let over = file(89, 0, &[1 << 16]);
        let cut = &over[..HEADER_BYTES + 16 + 4];
        assert!(read_bytecode(cut)
            .unwrap_err()
            .to_string()
            .contains("function 0's large header"));
    }

    #[test]
    fn another_version_is_refused_with_its_number() {
        // 97: a development layout of Hermes V1, never shipped.
        let err = read_bytecode(&file(97, 0, &[1])).unwrap_err();
        assert_eq!(err, BytecodeError::UnknownVersion(97));
        assert!(
            err.to_string().starts_with("unknown bytecode version 97"),
            "{err}"
        );
        // The legacy layout under every legacy number; a table that does not hold together is not read.
        assert!(read_bytecode(&file(96, 0, &[1, 2])).is_ok());
        let mut cut_code = file(89, 0, &[10, 20]);
        cut_code.truncate(cut_code.len() - 5);
        assert!(matches!(
            read_bytecode(&cut_code),
            Err(BytecodeError::Inconsistent { version: 89, .. })
        ));
        assert_eq!(
            read_bytecode(b"var x = 1;\n"),
            Err(BytecodeError::NotBytecode)
        );
    }

    #[test]
    fn offsets_are_judged_function_by_function() {
        let b = read_bytecode(&file(89, 0, &[10, 20, 30])).unwrap();
        let map = |v: &[u32]| HashMap::from([(0u32, v.to_vec())]);
        assert!(judge_offsets(&b, Some(&map(&[0, 10, 30]))).fits());
        let other = judge_offsets(&b, Some(&map(&[0, 12, 30])));
        assert_eq!(
            other.mismatch,
            Some(BytecodeMismatch::Offsets {
                function: 1,
                in_file: Some(10),
                in_map: Some(12),
                map_functions: 3
            })
        );
        assert!(other
            .message()
            .starts_with("the map is another compile's: function 1 starts at bytecode offset 10 in this file, 12 in the map"));
        let fewer = judge_offsets(&b, Some(&map(&[0, 10])));
        assert!(fewer.message().contains(
            "function 2 starts at bytecode offset 30 in this file, and the map lists only 2"
        ));
        let more = judge_offsets(&b, Some(&map(&[0, 10, 30, 40])));
        assert!(
            more.message().contains("the map lists a function 3"),
            "{}",
            more.message()
        );
        let js = judge_offsets(&b, None);
        assert!(js
            .message()
            .starts_with("this map describes JavaScript (no x_hermes_function_offsets)"));
        let segment = judge_offsets(&b, Some(&HashMap::from([(2u32, vec![0])])));
        assert_eq!(
            segment.mismatch,
            Some(BytecodeMismatch::NoSegment {
                segment: 0,
                has: vec![2]
            })
        );
    }
}
