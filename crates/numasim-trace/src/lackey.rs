//! Reader for Valgrind lackey's memory trace (`valgrind --tool=lackey --trace-mem=yes
//! --log-file=FILE PROGRAM`).
//!
//! Lackey writes one line per event: `I  <hex addr>,<size>` for an instruction fetch (in
//! column 0), and ` L`, ` S`, ` M` (load, store, modify = load then store) for data accesses,
//! addresses in hexadecimal without `0x`, sizes in decimal bytes. Lines starting with `==`
//! are Valgrind's own messages and are skipped, as are blank lines. The instruction count is
//! the number of `I` lines so far, so a data access carries the count of the instruction that
//! made it. Accesses wider than 255 bytes (`xsave`-style) are split into 64-byte pieces, since
//! a native access size is one byte wide.
//!
//! Valgrind serialises threads and lackey does not say which thread made an access, so a lackey
//! trace is one thread; several files make several threads, in argument order. Use
//! `--log-file`: a program's own output on stderr would interleave with the trace, and any line
//! that is not a lackey event is [`SourceError::Corrupt`] naming its byte offset and line.

use std::path::PathBuf;

use crate::foreign::{parse_u64_radix, show_line, ForeignReader, Input, ThreadStream};
use crate::record::Access;
use crate::source::SourceError;

/// Piece size for accesses wider than a native access can say.
const SPLIT_BYTES: u64 = 64;

struct LackeyThread {
    input: Input,
    line: Vec<u8>,
    instr: u64,
}

/// Parses `<hex>,<dec>` into (address, size).
fn addr_size(s: &[u8]) -> Option<(u64, u64)> {
    let comma = s.iter().position(|&b| b == b',')?;
    let addr = parse_u64_radix(&s[..comma], 16)?;
    let size = parse_u64_radix(&s[comma + 1..], 10)?;
    (size > 0 && size <= 1 << 20).then_some((addr, size))
}

fn push(out: &mut Vec<Access>, instr: u64, addr: u64, size: u64, write: bool) {
    let mut at = addr;
    let end = addr.saturating_add(size);
    while at < end {
        let len = if size <= 255 { size } else { SPLIT_BYTES.min(end - at) };
        out.push(if write {
            Access::write(instr, at, len as u8)
        } else {
            Access::read(instr, at, len as u8)
        });
        at += len;
    }
}

impl LackeyThread {
    /// Handles one line; None when it is not a lackey event.
    fn parse(&mut self, line: &[u8], out: &mut Vec<Access>) -> Option<()> {
        if line.first() == Some(&b'I') {
            let rest = line[1..].trim_ascii_start();
            addr_size(rest)?;
            self.instr += 1;
            return Some(());
        }
        let body = line.strip_prefix(b" ")?;
        let (&kind, rest) = body.split_first()?;
        let (addr, size) = addr_size(rest.trim_ascii_start())?;
        match kind {
            b'L' => push(out, self.instr, addr, size, false),
            b'S' => push(out, self.instr, addr, size, true),
            b'M' => {
                push(out, self.instr, addr, size, false);
                push(out, self.instr, addr, size, true);
            }
            _ => return None,
        }
        Some(())
    }
}

impl ThreadStream for LackeyThread {
    fn fill(&mut self, out: &mut Vec<Access>, want: usize) -> Result<bool, SourceError> {
        let mut line = std::mem::take(&mut self.line);
        let result = (|| {
            while out.len() < want {
                let Some(offset) = self.input.next_line(&mut line)? else {
                    return Ok(false);
                };
                if line.is_empty() || line.starts_with(b"==") {
                    continue;
                }
                if self.parse(&line, out).is_none() {
                    return Err(self.input.corrupt(
                        offset,
                        format!(
                            "line {}: `{}` is not a lackey event (`I  addr,size`, ` L|S|M addr,size`, or a `==` \
                             message); trace with --log-file so the program's output stays out",
                            self.input.line,
                            show_line(&line)
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

/// Opens lackey logs (plain, .gz or .xz), one file per thread.
pub fn open_lackey(paths: &[PathBuf]) -> Result<ForeignReader, SourceError> {
    ForeignReader::open_with("lackey", paths, serde_json::Value::Null, |input| {
        Box::new(LackeyThread {
            input,
            line: Vec::with_capacity(128),
            instr: 0,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::NativeReader;
    use crate::source::collect_all;

    #[test]
    fn lackey_events_become_accesses_with_instruction_counts() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lackey.log");
        std::fs::write(
            &p,
            "==123== Lackey, an example Valgrind tool\n==123== Command: ./a.out\n\
             I  04001d90,3\n S 1ffefffe38,8\nI  04001d93,5\n L 04030e70,4\n M 1ffefffe40,8\n\
             I  04001d98,7\nI  04001da0,4\n S 00601000,512\n==123== \n",
        )
        .unwrap();
        let mut src = open_lackey(std::slice::from_ref(&p)).unwrap();
        let out = dir.path().join("out.trace");
        crate::foreign::convert_foreign(&mut src, &out, &Default::default()).unwrap();
        let got = collect_all(&mut NativeReader::open(&out).unwrap()).unwrap();
        let mut want = vec![
            Access::write(1, 0x1ffefffe38, 8),
            Access::read(2, 0x04030e70, 4),
            Access::read(2, 0x1ffefffe40, 8),
            Access::write(2, 0x1ffefffe40, 8),
        ];
        want.extend((0..8).map(|k| Access::write(4, 0x00601000 + 64 * k, 64)));
        assert_eq!(got, vec![want]);
    }

    #[test]
    fn interleaved_program_output_and_garbage_name_line_and_offset() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("lackey.log");
        for (text, line, offset) in [
            ("I  0400,3\n L 10,8\nhello from the program\n", 3, 18),
            ("I  0400,3\n L 10,\n", 2, 10),
            ("I  0400,3\n X 10,8\n", 2, 10),
            ("I  zz,3\n", 1, 0),
            (" L 10,99999999999\n", 1, 0),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = collect_all(&mut open_lackey(std::slice::from_ref(&p)).unwrap())
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("byte offset {offset}: line {line}:")),
                "{text:?}: {e}"
            );
        }
    }

    /// A real lackey log of a tiny program, when Valgrind is installed (the set-up command
    /// installs it; tests never do).
    #[test]
    fn a_real_lackey_log_reads_when_valgrind_is_present() {
        let Ok(status) = std::process::Command::new("valgrind").arg("--version").output() else {
            assert!(
                std::env::var_os("NUMASIM_REQUIRE_TRACER").is_none(),
                "NUMASIM_REQUIRE_TRACER is set but valgrind is not installed"
            );
            eprintln!(
                "SKIPPED: valgrind is not installed (apt-get install valgrind); lackey's real output not checked"
            );
            return;
        };
        assert!(status.status.success());
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("lackey.log");
        let out = std::process::Command::new("valgrind")
            .args(["--tool=lackey", "--trace-mem=yes"])
            .arg(format!("--log-file={}", log.display()))
            .arg("/bin/true")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let got = collect_all(&mut open_lackey(&[log]).unwrap()).unwrap();
        let accesses = &got[0];
        // /bin/true still runs the dynamic loader: tens of thousands of accesses, both kinds.
        assert!(accesses.len() > 10_000, "{}", accesses.len());
        assert!(accesses.iter().any(|a| a.is_write()) && accesses.iter().any(|a| !a.is_write()));
        assert!(accesses.windows(2).all(|w| w[0].instr <= w[1].instr));
    }
}
