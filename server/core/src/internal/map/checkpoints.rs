//! `CheckpointTable`: a section's checkpoints, laid out for the two searches a lookup makes and stored at about 20 B
//! each instead of 28.
//!
//! A random lookup on a large map reads its checkpoints from memory, not from cache, so the layout counts cache
//! lines, not comparisons:
//! - the search keys, generated (line, column) packed in a `u64`, sit together at the head of each block of 16,
//!   eight to a cache line, apart from the offsets and accumulators a search does not compare;
//! - every [`BLOCK`]-th key is copied into a summary small enough to stay in cache (1/16 of the keys), so a search
//!   reads the summary, then one block of keys (two cache lines), then the one block base and delta it needs;
//! - a checkpoint's offset and accumulators are stored as a delta from its block's first checkpoint (`u16` offset,
//!   four `i16`), 10 B instead of 20 B; a checkpoint whose delta does not fit is kept whole in a short overflow list.
//!
//! Cost per checkpoint: 8 B key + 10 B delta + (24 B base + 8 B summary) / 16 = 20 B, plus 24 B per overflowed
//! checkpoint (none in the benchmark fixtures; `stats` counts them in the index bytes). All of it is one allocation,
//! so a section of one block reads its keys, base and delta from neighbouring cache lines.

use crate::internal::map::segment::Accumulators;

/// Checkpoints per block (per summary entry and per base).
pub const BLOCK: usize = 16;

/// Where decoding can resume: a segment's byte offset, its generated line and absolute column, and the accumulators
/// before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// Byte offset of the segment's first digit in the section's `mappings`.
    pub offset: u32,
    /// 0-based generated line, relative to the section.
    pub line: u32,
    /// The segment's absolute generated column (0-based), so decoding resumes without the line's earlier deltas.
    pub column: u32,
    /// The accumulators before the segment, which its relative fields add to.
    pub accumulators: Accumulators,
}

/// A checkpoint's offset and accumulators (what is not in its key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct State {
    offset: u32,
    acc: [u32; 4],
}

/// Marks a delta whose checkpoint is in the overflow list.
const OVERFLOW: u16 = u16::MAX;

/// `u64` words per block base (offset and four accumulators, 20 B).
const BASE_WORDS: usize = 3;
/// `u64` words per overflow entry (index, offset and four accumulators).
const OVERFLOW_WORDS: usize = 3;

/// See the module documentation. One allocation, block after block, each in the order a lookup reads it: its keys,
/// its base, its deltas (`u16`s, four to a word); then the summary and the overflow entries (sorted by index). Every
/// block but the last is full, so block `b` starts at `b * FULL_BLOCK_WORDS`.
#[derive(Debug, Clone, Default)]
pub struct CheckpointTable {
    data: Box<[u64]>,
    len: u32,
    overflow: u32,
}

/// Words of a block of `k` checkpoints.
const fn block_words(k: usize) -> usize {
    k + BASE_WORDS + (k * 5).div_ceil(4)
}

const FULL_BLOCK_WORDS: usize = block_words(BLOCK);

/// Words of the blocks of `n` checkpoints (no base for an empty last block).
fn blocks_words(n: usize) -> usize {
    let rest = n % BLOCK;
    (n / BLOCK) * FULL_BLOCK_WORDS + if rest == 0 { 0 } else { block_words(rest) }
}

fn key(line: u32, column: u32) -> u64 {
    (u64::from(line) << 32) | u64::from(column)
}

fn acc_array(a: Accumulators) -> [u32; 4] {
    [a.source, a.original_line, a.original_column, a.name]
}

fn pack(state: &State) -> [u64; 3] {
    [
        u64::from(state.offset) | u64::from(state.acc[0]) << 32,
        u64::from(state.acc[1]) | u64::from(state.acc[2]) << 32,
        u64::from(state.acc[3]),
    ]
}

fn unpack(words: &[u64]) -> State {
    State {
        offset: words[0] as u32,
        acc: [
            (words[0] >> 32) as u32,
            words[1] as u32,
            (words[1] >> 32) as u32,
            words[2] as u32,
        ],
    }
}

/// One block of the table, borrowed.
struct Block<'a> {
    keys: &'a [u64],
    base: &'a [u64],
    deltas: &'a [u64],
}

impl Block<'_> {
    fn delta_part(&self, j: usize, part: usize) -> u16 {
        let at = j * 5 + part;
        (self.deltas[at / 4] >> ((at % 4) * 16)) as u16
    }
}

impl CheckpointTable {
    /// `checkpoints` must be sorted by (line, column) and by offset, both strictly.
    pub fn new(checkpoints: &[Checkpoint]) -> Self {
        debug_assert!(checkpoints
            .windows(2)
            .all(|w| (w[0].line, w[0].column) < (w[1].line, w[1].column)
                && w[0].offset < w[1].offset));
        let n = checkpoints.len();
        let mut data = Vec::with_capacity(blocks_words(n) + n.div_ceil(BLOCK));
        let mut summary = Vec::with_capacity(n.div_ceil(BLOCK));
        let mut overflow = Vec::new();
        for (b, block) in checkpoints.chunks(BLOCK).enumerate() {
            let base = State {
                offset: block[0].offset,
                acc: acc_array(block[0].accumulators),
            };
            summary.push(key(block[0].line, block[0].column));
            data.extend(block.iter().map(|cp| key(cp.line, cp.column)));
            data.extend_from_slice(&pack(&base));
            let deltas_at = data.len();
            data.resize(deltas_at + (block.len() * 5).div_ceil(4), 0);
            for (j, cp) in block.iter().enumerate() {
                let state = State {
                    offset: cp.offset,
                    acc: acc_array(cp.accumulators),
                };
                let d = delta(&base, &state).unwrap_or_else(|| {
                    let i = b * BLOCK + j;
                    overflow.extend_from_slice(&[
                        i as u64 | u64::from(state.offset) << 32,
                        u64::from(state.acc[0]) | u64::from(state.acc[1]) << 32,
                        u64::from(state.acc[2]) | u64::from(state.acc[3]) << 32,
                    ]);
                    [OVERFLOW; 5]
                });
                for (part, value) in d.iter().enumerate() {
                    let at = j * 5 + part;
                    data[deltas_at + at / 4] |= u64::from(*value) << ((at % 4) * 16);
                }
            }
        }
        let overflow_count = overflow.len() / OVERFLOW_WORDS;
        data.extend_from_slice(&summary);
        data.extend_from_slice(&overflow);
        CheckpointTable {
            data: data.into_boxed_slice(),
            len: n as u32,
            overflow: overflow_count as u32,
        }
    }

    /// How many checkpoints.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are no checkpoints.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Heap bytes held: the one allocation of keys, bases, deltas, summary and overflow.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.data)
    }

    fn blocks(&self) -> usize {
        self.len().div_ceil(BLOCK)
    }

    fn block(&self, b: usize) -> Block<'_> {
        let start = b * FULL_BLOCK_WORDS;
        let k = (self.len() - b * BLOCK).min(BLOCK);
        let base = start + k;
        let deltas = base + BASE_WORDS;
        Block {
            keys: &self.data[start..base],
            base: &self.data[base..deltas],
            deltas: &self.data[deltas..deltas + (k * 5).div_ceil(4)],
        }
    }

    fn summary_at(&self) -> usize {
        blocks_words(self.len())
    }

    fn summary(&self) -> &[u64] {
        let at = self.summary_at();
        &self.data[at..at + self.blocks()]
    }

    fn overflow_entries(&self) -> &[u64] {
        let at = self.summary_at() + self.blocks();
        &self.data[at..at + self.overflow as usize * OVERFLOW_WORDS]
    }

    /// The last checkpoint at or before generated (line, column).
    pub fn at_or_before(&self, line: u32, column: u32) -> Option<Checkpoint> {
        let k = key(line, column);
        // A table of one block (most sections of an index map) skips the summary: one cache line fewer.
        let b = if self.len() <= BLOCK {
            usize::from(self.data.first().is_some_and(|&first| first <= k)).checked_sub(1)?
        } else {
            self.summary().partition_point(|&s| s <= k).checked_sub(1)?
        };
        let block = self.block(b);
        // The base and the deltas are read once the key is found: ask for their cache lines now.
        crate::internal::map::prefetch::prefetch(block.base.as_ptr());
        crate::internal::map::prefetch::prefetch(block.deltas.as_ptr());
        crate::internal::map::prefetch::prefetch(block.deltas[block.deltas.len() - 1..].as_ptr());
        let j = block.keys.partition_point(|&s| s <= k) - 1;
        Some(self.checkpoint(b, &block, j))
    }

    /// The last checkpoint on a line at or before `line`, whatever its column.
    pub fn last_at_or_before_line(&self, line: u32) -> Option<Checkpoint> {
        self.at_or_before(line, u32::MAX)
    }

    /// The last checkpoint whose offset is at or before `offset`.
    pub fn at_or_before_offset(&self, offset: u32) -> Option<Checkpoint> {
        let (mut lo, mut hi) = (0, self.blocks());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if unpack(self.block(mid).base).offset <= offset {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let b = lo.checked_sub(1)?;
        let block = self.block(b);
        let mut found = self.checkpoint(b, &block, 0);
        for j in 1..block.keys.len() {
            let next = self.checkpoint(b, &block, j);
            if next.offset > offset {
                break;
            }
            found = next;
        }
        Some(found)
    }

    /// The `i`-th checkpoint.
    pub fn get(&self, i: usize) -> Checkpoint {
        let b = i / BLOCK;
        self.checkpoint(b, &self.block(b), i % BLOCK)
    }

    fn checkpoint(&self, b: usize, block: &Block<'_>, j: usize) -> Checkpoint {
        let k = block.keys[j];
        let state = self.state(b, block, j);
        Checkpoint {
            offset: state.offset,
            line: (k >> 32) as u32,
            column: k as u32,
            accumulators: Accumulators {
                source: state.acc[0],
                original_line: state.acc[1],
                original_column: state.acc[2],
                name: state.acc[3],
            },
        }
    }

    fn state(&self, b: usize, block: &Block<'_>, j: usize) -> State {
        let offset = block.delta_part(j, 0);
        if offset == OVERFLOW {
            return self.overflowed(b * BLOCK + j);
        }
        let base = unpack(block.base);
        let mut acc = base.acc;
        for (part, a) in acc.iter_mut().enumerate() {
            *a = a.wrapping_add_signed(i32::from(block.delta_part(j, part + 1) as i16));
        }
        State {
            offset: base.offset + u32::from(offset),
            acc,
        }
    }

    fn overflowed(&self, i: usize) -> State {
        let entries = self.overflow_entries();
        let (mut lo, mut hi) = (0, entries.len() / OVERFLOW_WORDS);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if (entries[mid * OVERFLOW_WORDS] as u32 as usize) < i {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let e = &entries[lo * OVERFLOW_WORDS..(lo + 1) * OVERFLOW_WORDS];
        debug_assert_eq!(e[0] as u32 as usize, i, "an overflow mark has its entry");
        State {
            offset: (e[0] >> 32) as u32,
            acc: [
                e[1] as u32,
                (e[1] >> 32) as u32,
                e[2] as u32,
                (e[2] >> 32) as u32,
            ],
        }
    }
}

/// `state` as a delta from `base`, when every part fits (the offset in `u16` short of the overflow mark, each
/// accumulator in `i16`).
fn delta(base: &State, state: &State) -> Option<[u16; 5]> {
    let offset = state.offset.checked_sub(base.offset)?;
    if offset >= u32::from(OVERFLOW) {
        return None;
    }
    let mut d = [offset as u16, 0, 0, 0, 0];
    for (out, (&b, &s)) in d[1..].iter_mut().zip(base.acc.iter().zip(&state.acc)) {
        let diff = i16::try_from(i64::from(s) - i64::from(b)).ok()?;
        *out = diff as u16;
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(offset: u32, line: u32, column: u32, acc: [u32; 4]) -> Checkpoint {
        Checkpoint {
            offset,
            line,
            column,
            accumulators: Accumulators {
                source: acc[0],
                original_line: acc[1],
                original_column: acc[2],
                name: acc[3],
            },
        }
    }

    /// Checkpoints with small steps and, every so often, a jump too large for a delta.
    fn sample(n: u32) -> Vec<Checkpoint> {
        let mut offset = 0u32;
        (0..n)
            .map(|i| {
                offset += if i % 41 == 7 { 70_000 } else { 300 };
                let jump = if i % 37 == 5 { 100_000 } else { 0 };
                cp(
                    offset,
                    i / 3,
                    (i % 3) * 1000 + if i % 3 == 2 { jump } else { 0 },
                    [i % 5, i * 7 + jump, i * 11 % 900, i / 2 + jump * 3],
                )
            })
            .collect()
    }

    #[test]
    fn every_checkpoint_reads_back() {
        for n in [0u32, 1, 15, 16, 17, 100, 1000] {
            let all = sample(n);
            let t = CheckpointTable::new(&all);
            assert_eq!(t.len(), all.len());
            for (i, c) in all.iter().enumerate() {
                assert_eq!(t.get(i), *c, "n {n}, checkpoint {i}");
            }
            if n > 100 {
                assert!(t.overflow > 0, "the sample overflows some deltas");
            }
        }
    }

    #[test]
    fn searches_agree_with_a_linear_scan() {
        let all = sample(1000);
        let t = CheckpointTable::new(&all);
        let linear_key = |line: u32, column: u32| {
            all.iter()
                .rev()
                .find(|c| (c.line, c.column) <= (line, column))
                .copied()
        };
        for line in 0..340 {
            for column in [0, 1, 999, 1000, 1001, 2000, 2500, 100_000, u32::MAX] {
                assert_eq!(
                    t.at_or_before(line, column),
                    linear_key(line, column),
                    "{line}:{column}"
                );
            }
            assert_eq!(t.last_at_or_before_line(line), linear_key(line, u32::MAX));
        }
        let last = all.last().unwrap().offset;
        for offset in (0..last + 500).step_by(97) {
            let expected = all.iter().rev().find(|c| c.offset <= offset).copied();
            assert_eq!(t.at_or_before_offset(offset), expected, "offset {offset}");
        }
    }

    #[test]
    fn twenty_bytes_a_checkpoint() {
        let all: Vec<Checkpoint> = (0..1600)
            .map(|i| cp(i * 130, 0, i * 20, [0, i, i * 3, i / 4]))
            .collect();
        let t = CheckpointTable::new(&all);
        assert_eq!(t.overflow, 0);
        assert!(t.heap_bytes() <= 20 * all.len(), "{}", t.heap_bytes());
    }
}
