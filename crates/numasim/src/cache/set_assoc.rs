//! A set-associative, write-back, LRU cache of 64 B lines, as flat arrays.
//!
//! Used as the per-socket shared LLC filter (only misses and dirty evictions reach memory), and
//! in timing mode also as each core's private L1-D, L2 and TLB (keys are then page numbers):
//! a hit reports whether the line was already dirty (a dirty private line is owned, so a
//! store to it needs no coherence action), and a line can be cleaned when another socket
//! reads it.
//! Tags sit in one flat array, each set contiguous and kept in recency order, so a lookup
//! touches one short run of memory and no separate recency state. Set counts need not be
//! powers of two (28 cores × 2 MiB is not); the set is chosen by a multiply-shift over a
//! hashed line address.
//!
//! Why two layouts: the functional engine is bound by host cache misses on these arrays (a
//! random set per simulated access), so a set should be one host cache line. A 16-way set of
//! 8 B tags is two lines (three when the allocation is not 64 B aligned, as `malloc`'s large
//! blocks are not). Caches of 9 to 16 ways therefore keep 4 B tags, 16 lanes per set from a
//! 64 B boundary. A 4 B tag cannot hold a 58-bit line address, and the set (a hash of the
//! whole address) does not determine the rest, so the tag names its address's *region*
//! (`key >> 26`, 4 GiB of lines' bytes) by a small per-cache table of the regions seen: exact
//! for up to 31 regions, and on the 32nd the cache converts itself, once, to 8 B tags that
//! hold the key itself (the same contents, so results never depend on the layout). Other
//! way counts keep 8 B tags, also from a 64 B boundary (an 8-way set is then one line), and
//! arrays of 256 KiB or more get huge pages of their own (see `HUGE_FROM_BYTES`).

/// Result of one access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Hit {
        /// The line was dirty before this access.
        was_dirty: bool,
    },
    /// Missed; if a dirty line was evicted to make room, its line address.
    Miss { writeback: Option<u64> },
}

/// One tag in a set: a key (wide: the line address; narrow: region id and low bits), a dirty
/// bit on top, and an all-ones value for an empty way.
trait Lane: Copy + Eq {
    const DIRTY: Self;
    const INVALID: Self;
    fn key(self) -> Self;
    fn dirty(self) -> bool;
    fn with_dirty(self, write: bool) -> Self;
}

impl Lane for u64 {
    const DIRTY: u64 = 1 << 63;
    const INVALID: u64 = u64::MAX;
    #[inline(always)]
    fn key(self) -> u64 {
        self & !Self::DIRTY
    }
    #[inline(always)]
    fn dirty(self) -> bool {
        self & Self::DIRTY != 0
    }
    #[inline(always)]
    fn with_dirty(self, write: bool) -> u64 {
        if write {
            self | Self::DIRTY
        } else {
            self
        }
    }
}

impl Lane for u32 {
    const DIRTY: u32 = 1 << 31;
    const INVALID: u32 = u32::MAX;
    #[inline(always)]
    fn key(self) -> u32 {
        self & !Self::DIRTY
    }
    #[inline(always)]
    fn dirty(self) -> bool {
        self & Self::DIRTY != 0
    }
    #[inline(always)]
    fn with_dirty(self, write: bool) -> u32 {
        if write {
            self | Self::DIRTY
        } else {
            self
        }
    }
}

/// Shifts ways `0..w` down by one and puts `tag` first (sets are short: a plain loop beats
/// `rotate_right`'s general algorithm and a memmove call).
#[inline(always)]
fn to_front<T: Lane>(set: &mut [T], w: usize, tag: T) {
    let mut i = w;
    while i > 0 {
        set[i] = set[i - 1];
        i -= 1;
    }
    set[0] = tag;
}

/// Accesses `key` in one set (its ways in recency order, invalid ways trailing): `Ok(was
/// dirty)` on a hit, else `Err` with the evicted dirty tag's key, if any.
///
/// LRU is kept by order: a hit moves its way to the front, a miss evicts the last way and
/// inserts at the front.
#[inline(always)]
fn lookup<T: Lane>(set: &mut [T], key: T, write: bool) -> Result<bool, Option<T>> {
    for w in 0..set.len() {
        let tag = set[w];
        if tag.key() == key && tag != T::INVALID {
            to_front(set, w, tag.with_dirty(write));
            return Ok(tag.dirty());
        }
        if tag == T::INVALID {
            // Invalid ways only trail valid ones: the line is absent and there is room.
            to_front(set, w, key.with_dirty(write));
            return Err(None);
        }
    }
    let last = set.len() - 1;
    let old = set[last];
    to_front(set, last, key.with_dirty(write));
    Err(old.dirty().then(|| old.key()))
}

/// Drops `key` from one set if present; returns whether it was dirty.
#[inline]
fn remove<T: Lane>(set: &mut [T], key: T) -> bool {
    for w in 0..set.len() {
        if set[w] != T::INVALID && set[w].key() == key {
            let dirty = set[w].dirty();
            // Keep invalid ways at the end of the recency order.
            let last = set.len() - 1;
            for i in w..last {
                set[i] = set[i + 1];
            }
            set[last] = T::INVALID;
            return dirty;
        }
    }
    false
}

/// Whether one set holds `key`.
#[inline]
fn holds<T: Lane>(set: &[T], key: T) -> bool {
    set.iter().any(|&t| t != T::INVALID && t.key() == key)
}

/// Clears the dirty bit of `key` in one set if present.
#[inline]
fn clean<T: Lane>(set: &mut [T], key: T) {
    for t in set {
        if *t != T::INVALID && t.key() == key {
            *t = t.key();
        }
    }
}

/// Lanes per narrow set: 16 × 4 B, one host cache line.
const LANES: usize = 16;
/// Low key bits a narrow tag keeps; the rest of the key is its region.
const LOW_BITS: u32 = 26;
const LOW_MASK: u64 = (1 << LOW_BITS) - 1;
/// Regions a narrow cache can name: ids 0..=30 (5 bits). Id 31 is never handed out, so an
/// invalid lane (all ones) never equals a key, even with its dirty bit masked off.
const MAX_REGIONS: usize = 31;

/// The regions (`key >> LOW_BITS`) a narrow cache has seen, in first-seen order.
#[derive(Debug, Clone)]
struct Regions {
    hi: [u64; MAX_REGIONS],
    n: usize,
}

impl Regions {
    /// The narrow key of `key`, if its region has an id.
    #[inline(always)]
    fn find(&self, key: u64) -> Option<u32> {
        let hi = key >> LOW_BITS;
        let id = self.hi[..self.n].iter().position(|&h| h == hi)?;
        Some(((id as u32) << LOW_BITS) | (key & LOW_MASK) as u32)
    }

    /// The narrow key of `key`, naming its region if new; `None` when the table is full.
    #[inline(always)]
    fn find_or_add(&mut self, key: u64) -> Option<u32> {
        if let Some(k) = self.find(key) {
            return Some(k);
        }
        if self.n == MAX_REGIONS {
            return None;
        }
        self.hi[self.n] = key >> LOW_BITS;
        self.n += 1;
        self.find(key)
    }

    /// The key a narrow key stands for.
    #[inline]
    fn decode(&self, narrow: u32) -> u64 {
        (self.hi[(narrow >> LOW_BITS) as usize] << LOW_BITS) | (u64::from(narrow) & LOW_MASK)
    }
}

/// The tag array in one of the two layouts (see the module docs).
#[derive(Debug, Clone)]
enum Tags {
    /// 8 B tags, `ways` per set.
    Wide(TagArray<u64>),
    /// 4 B tags, [`LANES`] per set (lanes past `ways` stay invalid), coded by the cache's
    /// regions.
    Narrow(TagArray<u32>),
}

/// Arrays from this size on start on a 2 MiB boundary with huge pages advised for their whole
/// length (rounded up to 2 MiB). Smaller ones start on a 64 B boundary.
///
/// Why: a tag array is touched at a random set per access, so each of its 4 KiB host pages
/// is a host TLB entry; the scaled StarNUMA machine's 16 LLCs of 512 KiB each were 2048
/// pages, too many for the host's TLB, and below the 4 MiB from which
/// [`crate::huge_pages::advise`] finds a whole huge page inside a `Vec`. Giving each its
/// own huge page (2 MiB of memory instead of 512 KiB) made the scale-22 BFS 1.08× faster per
/// CPU-second.
const HUGE_FROM_BYTES: usize = 256 << 10;
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// A fixed-length array of tags at a 64 B (or 2 MiB) boundary: a `Vec` cannot be asked for
/// more alignment than its element's.
struct TagArray<T: Copy> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
    layout: std::alloc::Layout,
}

// SAFETY: a TagArray owns its elements exactly like a `Vec<T>`.
unsafe impl<T: Copy + Send> Send for TagArray<T> {}
// SAFETY: as above; shared access only reads.
unsafe impl<T: Copy + Sync> Sync for TagArray<T> {}

impl<T: Copy> TagArray<T> {
    /// An uninitialised allocation for `len` elements, or `None` when it cannot be had.
    fn allocate(len: usize) -> Option<(std::ptr::NonNull<T>, std::alloc::Layout)> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.max(64);
        let (align, bytes) = if bytes >= HUGE_FROM_BYTES {
            (HUGE_PAGE_BYTES, bytes.checked_next_multiple_of(HUGE_PAGE_BYTES)?)
        } else {
            (64, bytes)
        };
        let layout = std::alloc::Layout::from_size_align(bytes, align).ok()?;
        // SAFETY: the layout's size is at least 64 B.
        let ptr = std::ptr::NonNull::new(unsafe { std::alloc::alloc(layout) }.cast::<T>())?;
        if align == HUGE_PAGE_BYTES {
            crate::huge_pages::advise_bytes(ptr.as_ptr().cast(), bytes);
        }
        Some((ptr, layout))
    }

    /// `len` copies of `fill`, or `None` when the memory cannot be had.
    fn new(len: usize, fill: T) -> Option<Self> {
        let (ptr, layout) = Self::allocate(len)?;
        for i in 0..len {
            // SAFETY: `i < len` lies inside the allocation, which holds `len` elements.
            unsafe { ptr.as_ptr().add(i).write(fill) };
        }
        Some(TagArray { ptr, len, layout })
    }
}

impl<T: Copy> std::ops::Deref for TagArray<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised elements, owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> std::ops::DerefMut for TagArray<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: `len` initialised elements, owned by `self`, borrowed uniquely.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for TagArray<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by `allocate` with this layout; `T: Copy` needs no drop.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), self.layout) }
    }
}

impl<T: Copy> Clone for TagArray<T> {
    fn clone(&self) -> Self {
        let (ptr, layout) = Self::allocate(self.len).unwrap_or_else(|| std::alloc::handle_alloc_error(self.layout));
        // SAFETY: both hold `len` elements and are distinct allocations.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), ptr.as_ptr(), self.len) };
        TagArray {
            ptr,
            len: self.len,
            layout,
        }
    }
}

impl<T: Copy> std::fmt::Debug for TagArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TagArray({} tags)", self.len)
    }
}

#[derive(Debug, Clone)]
pub struct SetAssocCache {
    /// Sets per part.
    sets: u64,
    /// Sets of all parts.
    total_sets: usize,
    ways: usize,
    tags: Tags,
    /// Regions named by a narrow cache's tags (unused once wide).
    regions: Regions,
}

impl SetAssocCache {
    /// A cache of `size_bytes` with `ways` ways and 64 B lines (at least one set).
    pub fn new(size_bytes: u64, ways: usize) -> Self {
        Self::partitioned(1, size_bytes, ways)
    }

    /// `parts` independent caches of `size_bytes` each in one allocation (every core's L1, L2
    /// or TLB): one huge-page-backed array instead of many small ones the host TLB misses on.
    /// Address a part with the `*_in` methods.
    pub fn partitioned(parts: usize, size_bytes: u64, ways: usize) -> Self {
        Self::try_partitioned(parts, size_bytes, ways).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`SetAssocCache::partitioned`] that reports, instead of aborting, when the tag array's
    /// size overflows or the allocation fails (hostile sizes times thousands of cores).
    pub fn try_partitioned(parts: usize, size_bytes: u64, ways: usize) -> Result<Self, TagArrayError> {
        let ways = ways.max(1);
        Self::try_with_layout(parts, size_bytes, ways, (9..=LANES).contains(&ways))
    }

    /// [`SetAssocCache::try_partitioned`] in the narrow (4 B tags) or wide (8 B tags) layout;
    /// narrow needs at most [`LANES`] ways.
    fn try_with_layout(parts: usize, size_bytes: u64, ways: usize, narrow: bool) -> Result<Self, TagArrayError> {
        let ways = ways.max(1);
        let sets = (size_bytes / 64 / ways as u64).max(1);
        let (per_set, tag_bytes) = if narrow { (LANES, 4) } else { (ways, 8) };
        let total_sets = (parts.max(1) as u64)
            .checked_mul(sets)
            .and_then(|x| usize::try_from(x).ok());
        let n = total_sets
            .and_then(|s| s.checked_mul(per_set))
            .filter(|&n| {
                n.checked_add(16)
                    .and_then(|n| n.checked_mul(tag_bytes))
                    .is_some_and(|b| b <= isize::MAX as usize)
            })
            .ok_or(TagArrayError::Unaddressable { parts, size_bytes })?;
        let no_room = || TagArrayError::OutOfMemory {
            mib: (n * tag_bytes) as f64 / (1 << 20) as f64,
            parts,
            size_bytes,
        };
        let tags = if narrow {
            Tags::Narrow(TagArray::new(n, u32::INVALID).ok_or_else(no_room)?)
        } else {
            Tags::Wide(TagArray::new(n, u64::INVALID).ok_or_else(no_room)?)
        };
        Ok(SetAssocCache {
            sets,
            total_sets: total_sets.unwrap_or(0),
            ways,
            tags,
            regions: Regions {
                hi: [0; MAX_REGIONS],
                n: 0,
            },
        })
    }

    /// A cache of `entries` keys (lines, or pages for a TLB) in `ways` ways.
    pub fn with_entries(entries: u64, ways: usize) -> Self {
        Self::new(entries.saturating_mul(64), ways)
    }

    /// Drops every line (sampled timing: private caches that missed what another engine did).
    pub fn clear(&mut self) {
        match &mut self.tags {
            Tags::Wide(v) => v.fill(u64::INVALID),
            Tags::Narrow(v) => {
                v.fill(u32::INVALID);
                self.regions.n = 0;
            }
        }
    }

    /// Ways per set.
    pub fn ways(&self) -> usize {
        self.ways
    }

    pub fn sets(&self) -> u64 {
        self.sets
    }

    #[inline]
    fn set_of(&self, line: u64) -> usize {
        let h = line.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (((h as u128) * (self.sets as u128)) >> 64) as usize
    }

    /// Index of the set `line` maps to in part `part`, over all parts.
    #[inline]
    fn set_in(&self, part: usize, line: u64) -> usize {
        part * self.sets as usize + self.set_of(line)
    }

    /// Hints the host CPU to fetch the set `line` maps to (simulator lookahead).
    #[inline]
    pub fn prefetch(&self, line: u64) {
        self.prefetch_in(0, line)
    }

    /// [`SetAssocCache::prefetch`] in part `part`.
    #[inline]
    pub fn prefetch_in(&self, part: usize, line: u64) {
        let set = self.set_in(part, line);
        match &self.tags {
            Tags::Narrow(v) => {
                crate::prefetch::read(v.as_ptr().wrapping_add(set * LANES));
            }
            Tags::Wide(v) => {
                let base = set * self.ways;
                crate::prefetch::read(v.as_ptr().wrapping_add(base));
                crate::prefetch::read(v.as_ptr().wrapping_add(base + self.ways - 1));
            }
        }
    }

    /// Accesses line address `line` (byte address >> 6).
    #[inline]
    pub fn access(&mut self, line: u64, write: bool) -> Outcome {
        self.access_in(0, line, write)
    }

    /// [`SetAssocCache::access`] in part `part`.
    #[inline]
    pub fn access_in(&mut self, part: usize, line: u64, write: bool) -> Outcome {
        let set = self.set_in(part, line);
        let ways = self.ways;
        if let Tags::Narrow(v) = &mut self.tags {
            let regions = &mut self.regions;
            if let Some(key) = regions.find_or_add(line) {
                let base = set * LANES;
                return match lookup(&mut v[base..base + ways], key, write) {
                    Ok(was_dirty) => Outcome::Hit { was_dirty },
                    Err(evicted) => Outcome::Miss {
                        writeback: evicted.map(|k| regions.decode(k)),
                    },
                };
            }
            self.widen();
        }
        let Tags::Wide(v) = &mut self.tags else {
            unreachable!("a narrow cache with no room for a region was widened above")
        };
        let base = set * ways;
        match lookup(&mut v[base..base + ways], line, write) {
            Ok(was_dirty) => Outcome::Hit { was_dirty },
            Err(writeback) => Outcome::Miss { writeback },
        }
    }

    /// Converts a narrow cache to 8 B tags holding the same keys in the same order (its key
    /// space outgrew the region table). Once per cache at most.
    #[cold]
    #[inline(never)]
    fn widen(&mut self) {
        let Tags::Narrow(v) = &self.tags else {
            return;
        };
        let regions = &self.regions;
        let mut wide = TagArray::new(self.total_sets * self.ways, u64::INVALID).unwrap_or_else(|| {
            panic!(
                "cannot allocate the wide form of a cache's tags ({} sets)",
                self.total_sets
            )
        });
        for s in 0..self.total_sets {
            let narrow = &v[s * LANES..][..self.ways];
            for (w, &t) in narrow.iter().enumerate() {
                if t != u32::INVALID {
                    wide[s * self.ways + w] = regions.decode(t.key()).with_dirty(t.dirty());
                }
            }
        }
        self.tags = Tags::Wide(wide);
    }

    /// Whether the tags are 4 B (region-coded) rather than 8 B.
    #[cfg(test)]
    fn is_narrow(&self) -> bool {
        matches!(self.tags, Tags::Narrow(_))
    }

    /// Whether `line` is present (no change to the recency order).
    pub fn contains(&self, line: u64) -> bool {
        self.contains_in(0, line)
    }

    /// [`SetAssocCache::contains`] in part `part`.
    pub fn contains_in(&self, part: usize, line: u64) -> bool {
        let set = self.set_in(part, line);
        let ways = self.ways;
        match &self.tags {
            Tags::Narrow(v) => self.regions.find(line).is_some_and(|key| {
                let base = set * LANES;
                holds(&v[base..base + ways], key)
            }),
            Tags::Wide(v) => {
                let base = set * ways;
                holds(&v[base..base + ways], line)
            }
        }
    }

    /// Drops `line` if present (a migrated page's lines are invalidated); returns whether it was dirty.
    pub fn invalidate(&mut self, line: u64) -> bool {
        self.invalidate_in(0, line)
    }

    /// [`SetAssocCache::invalidate`] in part `part`.
    pub fn invalidate_in(&mut self, part: usize, line: u64) -> bool {
        let set = self.set_in(part, line);
        let ways = self.ways;
        match &mut self.tags {
            Tags::Narrow(v) => {
                let regions = &self.regions;
                // A line whose region has no id was never filled.
                let Some(key) = regions.find(line) else {
                    return false;
                };
                let base = set * LANES;
                remove(&mut v[base..base + ways], key)
            }
            Tags::Wide(v) => {
                let base = set * ways;
                remove(&mut v[base..base + ways], line)
            }
        }
    }

    /// Clears the dirty bit of `line` if present (the socket lost exclusive ownership).
    pub fn clean(&mut self, line: u64) {
        self.clean_in(0, line)
    }

    /// [`SetAssocCache::clean`] in part `part`.
    pub fn clean_in(&mut self, part: usize, line: u64) {
        let set = self.set_in(part, line);
        let ways = self.ways;
        match &mut self.tags {
            Tags::Narrow(v) => {
                if let Some(key) = self.regions.find(line) {
                    let base = set * LANES;
                    clean(&mut v[base..base + ways], key);
                }
            }
            Tags::Wide(v) => {
                let base = set * ways;
                clean(&mut v[base..base + ways], line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_of_a_partitioned_cache_are_independent() {
        let mut c = SetAssocCache::partitioned(3, 128, 2); // three one-set, two-way caches
        assert_eq!(c.access_in(0, 7, true), Outcome::Miss { writeback: None });
        assert_eq!(c.access_in(1, 7, false), Outcome::Miss { writeback: None });
        assert_eq!(c.access_in(0, 7, false), Outcome::Hit { was_dirty: true });
        // Filling part 2 evicts nothing from parts 0 and 1.
        for l in 0..10 {
            c.access_in(2, 100 + l, false);
        }
        assert_eq!(c.access_in(1, 7, false), Outcome::Hit { was_dirty: false });
        c.clean_in(0, 7);
        assert_eq!(c.access_in(0, 7, false), Outcome::Hit { was_dirty: false });
        assert!(!c.invalidate_in(1, 7));
        assert_eq!(c.access_in(1, 7, false), Outcome::Miss { writeback: None });
    }

    #[test]
    fn reports_dirty_hits_and_cleans() {
        let mut c = SetAssocCache::with_entries(2, 2); // one set, two ways
        assert_eq!(c.access(1, true), Outcome::Miss { writeback: None });
        assert_eq!(c.access(1, false), Outcome::Hit { was_dirty: true });
        c.clean(1);
        assert_eq!(c.access(1, true), Outcome::Hit { was_dirty: false });
        assert_eq!(c.access(2, false), Outcome::Miss { writeback: None });
        assert_eq!(c.access(3, false), Outcome::Miss { writeback: Some(1) });
        c.invalidate(3);
        assert_eq!(c.access(3, false), Outcome::Miss { writeback: None });
    }

    #[test]
    fn hit_after_miss_and_lru_eviction_with_writeback() {
        // One set, two ways.
        let mut c = SetAssocCache::new(128, 2);
        assert_eq!(c.sets(), 1);
        assert_eq!(c.access(1, true), Outcome::Miss { writeback: None });
        assert_eq!(c.access(2, false), Outcome::Miss { writeback: None });
        assert_eq!(c.access(1, false), Outcome::Hit { was_dirty: true });
        // 2 is LRU now and clean.
        assert_eq!(c.access(3, false), Outcome::Miss { writeback: None });
        // 1 is LRU now and dirty.
        assert_eq!(c.access(4, false), Outcome::Miss { writeback: Some(1) });
        assert_eq!(c.access(3, false), Outcome::Hit { was_dirty: false });
    }

    #[test]
    fn working_set_that_fits_only_misses_once() {
        let mut c = SetAssocCache::new(1 << 20, 16);
        let lines = (1 << 20) / 64 / 4; // a quarter of capacity; hashing spreads it over sets
        let misses = (0..3)
            .flat_map(|_| 0..lines)
            .filter(|&l| matches!(c.access(l, false), Outcome::Miss { .. }))
            .count() as u64;
        assert_eq!(misses, lines);
    }

    #[test]
    fn streaming_beyond_capacity_always_misses() {
        let mut c = SetAssocCache::new(64 * 1024, 8);
        let lines = 64 * 1024 / 64 * 4;
        for _ in 0..2 {
            for l in 0..lines {
                c.access(l, false);
            }
        }
        let hits = (0..lines)
            .filter(|&l| matches!(c.access(l, false), Outcome::Hit { .. }))
            .count();
        assert!(hits < lines as usize / 10, "{hits}");
    }

    /// Sets of both layouts start on host cache-line boundaries, and 9 to 16 ways are narrow.
    #[test]
    fn sets_are_line_aligned_and_layouts_chosen_by_ways() {
        for ways in [1, 4, 8, 9, 12, 16, 17, 32] {
            let c = SetAssocCache::partitioned(3, 64 * 1024, ways);
            assert_eq!(c.is_narrow(), (9..=16).contains(&ways), "{ways} ways");
            let addr = match &c.tags {
                Tags::Wide(v) => v.as_ptr() as usize,
                Tags::Narrow(v) => v.as_ptr() as usize,
            };
            assert_eq!(addr % 64, 0, "{ways} ways");
        }
        // A tag array of 256 KiB or more starts on a huge page of its own; clones too.
        for ways in [8, 16] {
            let c = SetAssocCache::new(8 << 20, ways);
            let c2 = c.clone();
            for c in [c, c2] {
                let addr = match &c.tags {
                    Tags::Wide(v) => v.as_ptr() as usize,
                    Tags::Narrow(v) => v.as_ptr() as usize,
                };
                assert_eq!(addr % HUGE_PAGE_BYTES, 0, "{ways} ways");
            }
        }
    }

    /// A narrow cache names up to 31 regions; the 32nd converts it to wide tags with the same
    /// lines, dirty bits and recency order.
    #[test]
    fn a_32nd_region_widens_the_cache_exactly() {
        let mut c = SetAssocCache::new(64 * 16, 16); // one set, 16 ways
        let region = |r: u64, low: u64| (r << LOW_BITS) | low;
        // 16 lines from 16 regions, odd ones written; then 15 more regions through the set.
        for r in 0..16 {
            assert_eq!(c.access(region(r, r), r % 2 == 1), Outcome::Miss { writeback: None });
        }
        // Line 0 is LRU and clean; line 1 next and dirty.
        assert_eq!(c.access(region(16, 5), false), Outcome::Miss { writeback: None });
        assert_eq!(
            c.access(region(17, 5), false),
            Outcome::Miss {
                writeback: Some(region(1, 1))
            }
        );
        for r in 18..31 {
            c.access(region(r, 7), true);
        }
        assert!(c.is_narrow());
        // Invalidating or cleaning a line of an unseen region names no region.
        assert!(!c.invalidate(region(40, 1)));
        c.clean(region(41, 1));
        assert!(c.is_narrow());
        // Region 31 (the 32nd): widened; the evicted line's address survives the conversion.
        let evicted = match c.access(region(31, 9), false) {
            Outcome::Miss { writeback } => writeback,
            hit => panic!("{hit:?}"),
        };
        assert!(!c.is_narrow());
        assert_eq!(evicted, Some(region(15, 15)), "the LRU line, dirty");
        // The most recent 16 lines are still there, dirty where written.
        assert_eq!(c.access(region(31, 9), false), Outcome::Hit { was_dirty: false });
        assert_eq!(c.access(region(30, 7), false), Outcome::Hit { was_dirty: true });
        assert_eq!(c.access(region(16, 5), false), Outcome::Hit { was_dirty: false });
        assert!(c.invalidate(region(18, 7)));
    }

    /// One step of a random stream: access (read or write), invalidate or clean.
    fn step(c: &mut SetAssocCache, part: usize, line: u64, op: u8) -> Option<Outcome> {
        match op {
            0 | 1 => Some(c.access_in(part, line, op == 1)),
            2 => Some(Outcome::Hit {
                was_dirty: c.invalidate_in(part, line),
            }),
            _ => {
                c.clean_in(part, line);
                None
            }
        }
    }

    proptest::proptest! {
        /// Narrow (region-coded 4 B) and wide (8 B) tags give the same hits, write-backs and
        /// invalidations on any stream, including streams over more regions than a narrow
        /// cache can name (it widens part-way).
        #[test]
        fn narrow_and_wide_tags_agree(
            ops in proptest::collection::vec((0u64..48, 0u64..96, 0usize..2, 0u8..4), 1..3000),
            ways in 9usize..17,
            regions in 1u64..48,
        ) {
            let mut narrow = SetAssocCache::try_with_layout(2, 64 * 4 * ways as u64, ways, true).unwrap();
            let mut wide = SetAssocCache::try_with_layout(2, 64 * 4 * ways as u64, ways, false).unwrap();
            proptest::prop_assert!(narrow.is_narrow() && !wide.is_narrow());
            let mut filled = std::collections::BTreeSet::new();
            for (r, low, part, op) in ops {
                // Regions far apart in the key space, low bits at both ends of a region.
                let line = (((r % regions) * 0x9_1234) << LOW_BITS) | (low << 19) | low;
                proptest::prop_assert_eq!(step(&mut narrow, part, line, op), step(&mut wide, part, line, op));
                if op < 2 {
                    filled.insert(r % regions);
                }
            }
            // Only accesses name regions; the cache widens at the 32nd.
            proptest::prop_assert_eq!(narrow.is_narrow(), filled.len() <= 31);
        }
    }

    proptest::proptest! {
        /// Against a textbook LRU (a recency list per set), including write-backs and invalidations.
        #[test]
        fn matches_reference_lru(ops in proptest::collection::vec((0u64..200, 0u8..3), 1..2000), ways in 1usize..17) {
            let mut c = SetAssocCache::new(64 * 4 * ways as u64, ways);
            let mut reference: Vec<Vec<(u64, bool)>> = vec![Vec::new(); c.sets() as usize];
            for (line, op) in ops {
                let set = &mut reference[c.set_of(line)];
                let pos = set.iter().position(|&(l, _)| l == line);
                if op == 2 {
                    let expect = pos.map(|p| set.remove(p).1).unwrap_or(false);
                    proptest::prop_assert_eq!(c.invalidate(line), expect);
                    continue;
                }
                let write = op == 1;
                let expect = match pos {
                    Some(p) => {
                        let (l, d) = set.remove(p);
                        set.insert(0, (l, d || write));
                        Outcome::Hit { was_dirty: d }
                    }
                    None => {
                        let wb = if set.len() == ways { set.pop().and_then(|(l, d)| d.then_some(l)) } else { None };
                        set.insert(0, (line, write));
                        Outcome::Miss { writeback: wb }
                    }
                };
                proptest::prop_assert_eq!(c.access(line, write), expect);
            }
        }
    }
}

/// Why the tag arrays of [`SetAssocCache::try_partitioned`] cannot be had.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TagArrayError {
    #[error("{parts} caches of {size_bytes} bytes need more tag memory than can be addressed")]
    Unaddressable { parts: usize, size_bytes: u64 },
    #[error("cannot allocate {mib:.1} MiB of cache tags for {parts} caches of {size_bytes} bytes")]
    OutOfMemory { mib: f64, parts: usize, size_bytes: u64 },
}

#[cfg(test)]
mod alloc_tests {
    use super::{SetAssocCache, TagArrayError};

    #[test]
    fn impossible_tag_arrays_are_errors_not_aborts() {
        let e = SetAssocCache::try_partitioned(usize::MAX, 1 << 30, 1).unwrap_err();
        assert!(matches!(e, TagArrayError::Unaddressable { .. }), "{e}");
        assert!(e.to_string().contains("more tag memory than can be addressed"), "{e}");
        let e = SetAssocCache::try_partitioned(1 << 40, 1 << 20, 16)
            .unwrap_err()
            .to_string();
        assert!(e.contains("tag memory") || e.contains("cannot allocate"), "{e}");
        let c = SetAssocCache::try_partitioned(4, 1 << 12, 4).unwrap();
        assert_eq!(c.sets(), 16);
    }
}
