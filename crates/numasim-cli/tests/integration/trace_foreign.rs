//! `numasim trace convert --from champsim|ramulator|lackey` and `trace info --format ...` through
//! the command line: files written here in each format, converted, read back.

use std::process::Command;

use numasim_trace::{collect_all, Access, NativeReader};

fn numasim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_numasim")).args(args).output().unwrap()
}

#[test]
fn each_foreign_format_converts_and_summarises_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let mut champ =
        numasim_trace::champsim::encode_champsim_record(0x400000, false, false, &[0x1000], &[0x2000]).to_vec();
    champ.extend_from_slice(&numasim_trace::champsim::encode_champsim_record(
        0x400004,
        true,
        true,
        &[],
        &[0x3000],
    ));
    std::fs::write(p("a.champsimtrace"), &champ).unwrap();
    std::fs::write(p("ram.trace"), "2 0x1000\n0 0x1040 0x9000\n").unwrap();
    std::fs::write(
        p("lackey.log"),
        "==1== Lackey\nI  0400,2\n L 1000,4\nI  0402,2\n M 2000,8\n",
    )
    .unwrap();
    let cases: [(&str, &str, Vec<Access>); 3] = [
        (
            "champsim",
            "a.champsimtrace",
            vec![
                Access::read(1, 0x1000, 8),
                Access::write(1, 0x2000, 8),
                Access::write(2, 0x3000, 8),
            ],
        ),
        (
            "ramulator",
            "ram.trace",
            vec![
                Access::read(3, 0x1000, 64),
                Access::read(4, 0x1040, 64),
                Access::write(4, 0x9000, 64),
            ],
        ),
        (
            "lackey",
            "lackey.log",
            vec![
                Access::read(1, 0x1000, 4),
                Access::read(2, 0x2000, 8),
                Access::write(2, 0x2000, 8),
            ],
        ),
    ];
    for (format, file, want) in cases {
        let out = p(&format!("{format}.trace"));
        let o = numasim(&["trace", "convert", "--from", format, &p(file), "-o", &out]);
        assert!(o.status.success(), "{format}: {}", String::from_utf8_lossy(&o.stderr));
        let got = collect_all(&mut NativeReader::open(&out).unwrap()).unwrap();
        assert_eq!(got, vec![want.clone()], "{format}");
        let o = numasim(&["trace", "info", "--format", format, &p(file), "--json"]);
        assert!(o.status.success(), "{format}: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["records"], want.len() as u64, "{format}");
        assert_eq!(v["format"], format);
    }
    // A bad line fails the conversion with its offset and line, and leaves no output.
    std::fs::write(p("bad.trace"), "0x10 R\nnonsense here\n").unwrap();
    let o = numasim(&[
        "trace",
        "convert",
        "--from",
        "ramulator",
        &p("bad.trace"),
        "-o",
        &p("bad.out"),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("byte offset 7: line 2:"), "{err}");
    assert!(!dir.path().join("bad.out").exists());
}
