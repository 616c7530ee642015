//! Reader for Ramulator's text memory traces, in the three forms Ramulator's front ends read:
//!
//! - **CPU trace** (Ramulator 1 `--mode=cpu`, Ramulator 2 `SimpleO3`):
//!   `<bubbles> <read address> [<writeback address>]` — `bubbles` non-memory instructions, then
//!   one load; the optional writeback is a store (an evicted dirty line) at the same instruction.
//!   The load's instruction count is the previous one plus `bubbles + 1`.
//! - **DRAM trace** (Ramulator 1 `--mode=dram`): `<address> <R|W>`.
//! - **Load/store trace** (Ramulator 2 `LoadStoreTrace`): `<LD|ST> <address>`.
//!
//! The DRAM and load/store forms have no instruction counts, so each line counts as one
//! instruction. Addresses are decimal or `0x` hexadecimal (Ramulator parses them with base 0).
//! Requests are cache lines, so every access gets [`RAMULATOR_ACCESS_SIZE_BYTES`].
//! Blank lines and lines starting with `#` are skipped. The form is taken from a file's first
//! data line; every later line must have the same form. A line that does not parse is
//! [`SourceError::Corrupt`] naming its byte offset and line number. One file per thread, in
//! argument order; plain, .gz or .xz (detected from content).

use std::path::PathBuf;

use crate::foreign::{parse_u64_auto, parse_u64_radix, show_line, ForeignReader, Input, ThreadStream};
use crate::record::Access;
use crate::source::SourceError;

/// Access size given to every Ramulator access (requests are 64-byte lines).
pub const RAMULATOR_ACCESS_SIZE_BYTES: u8 = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Cpu,
    Dram,
    LoadStore,
}

impl Form {
    fn expected(self) -> &'static str {
        match self {
            Form::Cpu => "`<bubbles> <read address> [<writeback address>]` (Ramulator CPU trace)",
            Form::Dram => "`<address> <R|W>` (Ramulator DRAM trace)",
            Form::LoadStore => "`<LD|ST> <address>` (Ramulator 2 load/store trace)",
        }
    }
}

struct RamulatorThread {
    input: Input,
    line: Vec<u8>,
    form: Option<Form>,
    instr: u64,
}

impl RamulatorThread {
    /// Parses one data line into `out`; None when it does not have the form `form`.
    fn parse(&mut self, form: Form, toks: &[&[u8]], out: &mut Vec<Access>) -> Option<()> {
        let size = RAMULATOR_ACCESS_SIZE_BYTES;
        match form {
            Form::Cpu => {
                if !(2..=3).contains(&toks.len()) {
                    return None;
                }
                let bubbles = parse_u64_radix(toks[0], 10)?;
                let read = parse_u64_auto(toks[1])?;
                let wb = match toks.get(2) {
                    Some(t) => Some(parse_u64_auto(t)?),
                    None => None,
                };
                self.instr = self.instr.checked_add(bubbles)?.checked_add(1)?;
                out.push(Access::read(self.instr, read, size));
                if let Some(w) = wb {
                    out.push(Access::write(self.instr, w, size));
                }
            }
            Form::Dram => {
                if toks.len() != 2 {
                    return None;
                }
                let addr = parse_u64_auto(toks[0])?;
                self.instr += 1;
                out.push(match toks[1] {
                    b"R" => Access::read(self.instr, addr, size),
                    b"W" => Access::write(self.instr, addr, size),
                    _ => return None,
                });
            }
            Form::LoadStore => {
                if toks.len() != 2 {
                    return None;
                }
                let addr = parse_u64_auto(toks[1])?;
                self.instr += 1;
                out.push(match toks[0] {
                    b"LD" => Access::read(self.instr, addr, size),
                    b"ST" => Access::write(self.instr, addr, size),
                    _ => return None,
                });
            }
        }
        Some(())
    }
}

fn detect(toks: &[&[u8]]) -> Option<Form> {
    match toks {
        [b"LD" | b"ST", _] => Some(Form::LoadStore),
        [_, b"R" | b"W"] => Some(Form::Dram),
        [_, _] | [_, _, _] => Some(Form::Cpu),
        _ => None,
    }
}

impl ThreadStream for RamulatorThread {
    fn fill(&mut self, out: &mut Vec<Access>, want: usize) -> Result<bool, SourceError> {
        let mut line = std::mem::take(&mut self.line);
        let result = (|| {
            while out.len() < want {
                let Some(offset) = self.input.next_line(&mut line)? else {
                    return Ok(false);
                };
                // At most 4 tokens are kept (no allocation per line); 4 means "too many".
                let mut slots: [&[u8]; 4] = [&[]; 4];
                let mut n = 0;
                for t in line.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty()) {
                    slots[n] = t;
                    n += 1;
                    if n == slots.len() {
                        break;
                    }
                }
                let toks = &slots[..n];
                if toks.is_empty() || toks[0].starts_with(b"#") {
                    continue;
                }
                let form = match self.form {
                    Some(f) => f,
                    None => match detect(toks) {
                        Some(f) => {
                            self.form = Some(f);
                            f
                        }
                        None => {
                            return Err(self.input.corrupt(
                                offset,
                                format!(
                                "line {}: `{}` is none of the Ramulator trace forms (`<bubbles> <addr> [<wb addr>]`, \
                                     `<addr> <R|W>`, `<LD|ST> <addr>`)",
                                self.input.line,
                                show_line(&line)
                            ),
                            ))
                        }
                    },
                };
                if self.parse(form, toks, out).is_none() {
                    return Err(self.input.corrupt(
                        offset,
                        format!(
                            "line {}: `{}` is not {} (the form of this file's first line)",
                            self.input.line,
                            show_line(&line),
                            form.expected()
                        ),
                    ));
                }
            }
            Ok(true)
        })();
        self.line = line;
        result
    }
}

/// Opens Ramulator text traces (any of the three forms), one file per thread.
pub fn open_ramulator(paths: &[PathBuf]) -> Result<ForeignReader, SourceError> {
    ForeignReader::open_with(
        "ramulator",
        paths,
        serde_json::json!({ "access_size_bytes": RAMULATOR_ACCESS_SIZE_BYTES }),
        |input| {
            Box::new(RamulatorThread {
                input,
                line: Vec::with_capacity(128),
                form: None,
                instr: 0,
            })
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::NativeReader;
    use crate::source::collect_all;

    #[test]
    fn cpu_dram_and_load_store_forms_convert_with_their_instruction_counts() {
        let dir = tempfile::tempdir().unwrap();
        let cpu = dir.path().join("cpu.trace");
        std::fs::write(&cpu, "# a comment\n3 20734016\n\n0 0x13c8a40 20734080\r\n12 4096\n").unwrap();
        let dram = dir.path().join("dram.trace");
        std::fs::write(&dram, "0x12345680 R\n0x4cbd56c0 W\n4096 R\n").unwrap();
        let ls = dir.path().join("ls.trace");
        std::fs::write(&ls, "LD 0x1000\nST 0x2040\n").unwrap();
        let mut src = open_ramulator(&[cpu, dram, ls]).unwrap();
        let out = dir.path().join("out.trace");
        crate::foreign::convert_foreign(&mut src, &out, &Default::default()).unwrap();
        let got = collect_all(&mut NativeReader::open(&out).unwrap()).unwrap();
        let r = |i, a| Access::read(i, a, 64);
        let w = |i, a| Access::write(i, a, 64);
        assert_eq!(
            got,
            vec![
                vec![r(4, 20734016), r(5, 0x13c8a40), w(5, 20734080), r(18, 4096)],
                vec![r(1, 0x12345680), w(2, 0x4cbd56c0), r(3, 4096)],
                vec![r(1, 0x1000), w(2, 0x2040)],
            ]
        );
    }

    #[test]
    fn a_bad_line_names_its_line_number_and_byte_offset() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        for (text, line, offset, what) in [
            ("0x10 R\n0x20 W\n0x30 X\n", 3, 14, "Ramulator DRAM trace"),
            ("5 100\n7 0xzz\n", 2, 6, "Ramulator CPU trace"),
            ("5 100\n0x20 R\n", 2, 6, "Ramulator CPU trace"), // forms may not mix
            ("1 2 3 4\n", 1, 0, "none of the Ramulator trace forms"),
            ("5 100\n99999999999999999999 1\n", 2, 6, "CPU trace"), // overflow
            ("1 2\n\u{0}\u{1}garbage\u{7f}\n", 2, 4, "CPU trace"),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = collect_all(&mut open_ramulator(std::slice::from_ref(&p)).unwrap())
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("byte offset {offset}: line {line}:")) && e.contains(what),
                "{text:?}: {e}"
            );
        }
    }
}
