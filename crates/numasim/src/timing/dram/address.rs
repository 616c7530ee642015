//! The address map: which channel, rank, bank group, bank and row a line address lives in.

use super::*;

/// A bit-slice address mapping, fields from least to most significant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressMap {
    pub(super) fields: [Field; 6],
    pub(super) len: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    Ch,
    Ra,
    Bg,
    Ba,
    Ro,
    Co,
}

/// Why a `dram_address_mapping` does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MappingError {
    #[error("`{0}`: fields are two letters each (Ro, Ba, Bg, Ra, Co, Ch)")]
    OddLength(String),
    #[error("`{mapping}`: unknown field `{field}` (Ro, Ba, Bg, Ra, Co, Ch)")]
    UnknownField { mapping: String, field: String },
    #[error("`{0}`: a field appears twice")]
    Repeated(String),
    #[error("`{0}`: needs each of Ro, Ba, Ra, Co and Ch")]
    Missing(String),
}

impl AddressMap {
    /// Parses `RoBaRaCoCh`-style names: `Ro`, `Ba`, `Ra`, `Co` and `Ch` once each, `Bg` at most
    /// once, most significant first.
    pub fn parse(s: &str) -> Result<AddressMap, MappingError> {
        let b = s.as_bytes();
        if !b.len().is_multiple_of(2) {
            return Err(MappingError::OddLength(s.to_string()));
        }
        let mut fields = [Field::Ro; 6];
        let mut len = 0;
        for pair in b.chunks(2).rev() {
            let f = match pair {
                b"Ch" => Field::Ch,
                b"Ra" => Field::Ra,
                b"Bg" => Field::Bg,
                b"Ba" => Field::Ba,
                b"Ro" => Field::Ro,
                b"Co" => Field::Co,
                _ => {
                    return Err(MappingError::UnknownField {
                        mapping: s.to_string(),
                        field: String::from_utf8_lossy(pair).into_owned(),
                    })
                }
            };
            if fields[..len].contains(&f) || len == 6 {
                return Err(MappingError::Repeated(s.to_string()));
            }
            fields[len] = f;
            len += 1;
        }
        for need in [Field::Ch, Field::Ra, Field::Ba, Field::Ro, Field::Co] {
            if !fields[..len].contains(&need) {
                return Err(MappingError::Missing(s.to_string()));
            }
        }
        Ok(AddressMap { fields, len })
    }
}

/// The fields of a mapping whose radices are all powers of two, as bit slices `(shift,
/// mask)` (the same digits as [`Digit::split`] in turn, a few instructions instead of a loop).
#[derive(Debug, Clone, Copy)]
pub(super) struct BitFields {
    pub(super) ch: (u32, u64),
    pub(super) ra: (u32, u64),
    pub(super) bg: (u32, u64),
    pub(super) ba: (u32, u64),
    pub(super) row: (u32, u64),
}

impl BitFields {
    pub(super) fn new(digits: &[Digit], channels: u64, ranks: u64, groups: u64, banks_per_group: u64) -> Option<Self> {
        let pow2 = [channels, ranks, groups, banks_per_group]
            .iter()
            .all(|r| r.is_power_of_two());
        let n = digits.len();
        if !pow2 || digits[..n - 1].iter().any(|d| d.shift.is_none()) {
            return None;
        }
        let has_bg = digits.iter().any(|d| matches!(d.field, Field::Bg));
        let mut b = BitFields {
            ch: (0, 0),
            ra: (0, 0),
            bg: (0, 0),
            ba: (0, 0),
            row: (0, 0),
        };
        let mut off = 0u32;
        for (i, d) in digits.iter().enumerate() {
            let last = i + 1 == n;
            match d.field {
                Field::Ch => b.ch = (off, channels - 1),
                Field::Ra => b.ra = (off, ranks - 1),
                Field::Bg => b.bg = (off, groups - 1),
                Field::Ba if has_bg => b.ba = (off, banks_per_group - 1),
                Field::Ba => {
                    b.bg = (off, groups - 1);
                    b.ba = (off.saturating_add(groups.trailing_zeros()), banks_per_group - 1);
                }
                Field::Ro => b.row = (off, if last { u64::MAX } else { d.radix - 1 }),
                Field::Co => {}
            }
            if !last {
                off = off.saturating_add(d.shift?);
            }
        }
        Some(b)
    }
}

/// One digit of the address mapping.
#[derive(Debug, Clone, Copy)]
pub(super) struct Digit {
    pub(super) field: Field,
    pub(super) radix: u64,
    /// `log2(radix)` when the radix is a power of two.
    pub(super) shift: Option<u32>,
}

impl Digit {
    /// Splits `x` into (this digit, the rest).
    #[inline]
    pub(super) fn split(self, x: u64) -> (u64, u64) {
        match self.shift {
            Some(s) => (x & (self.radix - 1), x >> s),
            None => (x % self.radix, x / self.radix),
        }
    }
}

impl MemoryController {
    /// Where line address `addr` lives, by the mapping.
    #[inline]
    pub fn place(&self, addr: u64) -> Place {
        if let Some(b) = &self.bits {
            let f = |(shift, mask): (u32, u64)| addr.checked_shr(shift).unwrap_or(0) & mask;
            return self.place_of(f(b.ch), f(b.ra), f(b.bg), f(b.ba), f(b.row));
        }
        self.place_by_digits(addr)
    }

    /// [`MemoryController::place`] digit by digit (any radices).
    pub(super) fn place_by_digits(&self, addr: u64) -> Place {
        let (mut ch, mut ra, mut bg, mut ba, mut row) = (0, 0, 0, 0, 0);
        let mut x = addr;
        let n = self.map.len;
        for (i, d) in self.digits[..n].iter().enumerate() {
            // The most significant field takes what is left; a channel, rank or bank there is
            // kept in range (every other digit already is).
            let (v, rest) = if i + 1 == n { (x, 0) } else { d.split(x) };
            x = rest;
            let last = i + 1 == n;
            match d.field {
                Field::Ch => ch = if last { v % self.channels } else { v },
                Field::Ra => ra = if last { v % self.ranks } else { v },
                Field::Bg => bg = if last { v % self.groups } else { v },
                Field::Ba if self.has_bg => ba = if last { v % self.banks_per_group } else { v },
                Field::Ba => {
                    // Bank group and bank together, the group the faster-changing digit.
                    let (g, b) = self.group_digit.split(v);
                    bg = g;
                    ba = if last { b % self.banks_per_group } else { b };
                }
                Field::Ro => row = v,
                Field::Co => {}
            }
        }
        self.place_of(ch, ra, bg, ba, row)
    }

    #[inline]
    pub(super) fn place_of(&self, ch: u64, ra: u64, bg: u64, ba: u64, row: u64) -> Place {
        let rank = ch * self.ranks + ra;
        let group = rank * self.groups + bg;
        Place {
            channel: ch as usize,
            rank: rank as usize,
            group: group as usize,
            bank: (group * self.banks_per_group + ba) as usize,
            row,
        }
    }
}
