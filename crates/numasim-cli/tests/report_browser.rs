//! The HTML report as a user sees it: a small run is simulated, reported, and opened in headless
//! Chromium. The test asserts no console errors, every expected view present and non-empty, and
//! no horizontal scrolling at 1280 px. Without a browser (and no way to install Debian's
//! `chromium` as root) it is skipped with a message saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

const EXPERIMENT: &str = r#"
machine = "starnuma16-pool"
seed = 3
phase_instructions = 20000

[workload]
kind = "synthetic"
threads = 16
pattern = "shared-hot"
accesses_per_thread = 20000
"#;

fn numasim(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(args)
        .output()
        .expect("numasim runs");
    assert!(
        out.status.success(),
        "numasim {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Two small runs with different placements, reported together; returns (tempdir, report path).
fn make_report() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let p = |s: &str| t.path().join(s).to_string_lossy().into_owned();
    std::fs::write(p("ft.toml"), format!("name = \"first-touch\"\n{EXPERIMENT}")).unwrap();
    let il = format!("name = \"interleave\"\n{EXPERIMENT}\n[placement]\npolicy = \"interleave\"\nnodes = [\"m0\", \"m5\", \"pool\"]\n");
    std::fs::write(p("il.toml"), il).unwrap();
    numasim(&["run", &p("ft.toml"), "-o", &p("ft")]);
    numasim(&["run", &p("il.toml"), "-o", &p("il")]);
    numasim(&["report", &p("ft"), &p("il"), "-o", &p("report.html")]);
    let report = t.path().join("report.html");
    (t, report)
}

fn find_chromium() -> Option<PathBuf> {
    for c in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(c).exists() {
            return Some(c.into());
        }
    }
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .is_some_and(|o| o.stdout.trim_ascii() == b"0");
    let has_apt = Path::new("/usr/bin/apt-get").exists();
    if is_root && has_apt {
        eprintln!("installing chromium with apt-get for the browser test");
        let ok = Command::new("apt-get")
            .args(["install", "-y", "-qq", "chromium"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success());
        if ok && Path::new("/usr/bin/chromium").exists() {
            return Some("/usr/bin/chromium".into());
        }
    }
    None
}

fn chromium(browser: &Path, profile: &Path, extra: &[&str], url: &str) -> std::process::Output {
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1280,2000",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(extra)
    .arg(url);
    cmd.output().expect("chromium starts")
}

/// The `<section id="view-ID" …>…</section>` of the rendered DOM.
fn section<'a>(dom: &'a str, id: &str) -> Option<&'a str> {
    let start = dom.find(&format!("id=\"view-{id}\""))?;
    let end = dom[start..].find("</section>")? + start;
    Some(&dom[start..end])
}

#[test]
fn report_renders_in_headless_chromium() {
    let (tmp, report) = make_report();
    let html = std::fs::read_to_string(&report).unwrap();
    // Self-contained: nothing fetched from anywhere.
    for bad in ["<link", "src=\"http", "src='http", "@import", "url(http"] {
        assert!(!html.contains(bad), "report references an external resource ({bad})");
    }
    let Some(browser) = find_chromium() else {
        println!("SKIPPED report_renders_in_headless_chromium: no Chromium at /usr/bin/chromium and it could not be installed (needs root and apt-get); install Debian's `chromium` package to run this test");
        return;
    };
    let url = format!("file://{}", report.display());
    let out = chromium(
        &browser,
        &tmp.path().join("profile-dom"),
        &["--dump-dom", "--virtual-time-budget=3000"],
        &url,
    );
    assert!(
        out.status.success(),
        "chromium --dump-dom failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let log = String::from_utf8_lossy(&out.stderr);
    let console_errors: Vec<&str> = log
        .lines()
        .filter(|l| {
            l.contains("Uncaught") || l.contains("ERROR:CONSOLE") || (l.contains("CONSOLE") && l.contains("rror"))
        })
        .collect();
    assert!(
        console_errors.is_empty(),
        "console errors:\n{}",
        console_errors.join("\n")
    );

    assert!(section(&dom, "summary").is_some_and(|s| s.contains("<table") && s.contains("first-touch")));
    for id in ["machine", "access-classes", "sharing", "placement"] {
        let s = section(&dom, id).unwrap_or_else(|| panic!("view `{id}` missing from the rendered page"));
        let svg_start = s.find("<svg").unwrap_or_else(|| panic!("view `{id}` has no svg"));
        let svg = &s[svg_start..];
        assert!(
            svg.contains("<rect") || svg.contains("<polygon") || svg.contains("<path"),
            "view `{id}` svg is empty"
        );
        assert!(svg.contains("<text"), "view `{id}` svg has no text");
    }
    // Views without data (no timing or migration in these runs) are left out, not drawn empty.
    for id in ["amat", "speedup"] {
        assert!(section(&dom, id).is_none(), "view `{id}` shown without data");
    }
    // The inline script ran after load and found no horizontal overflow at 1280 px.
    assert!(
        dom.contains("data-fits=\"yes\""),
        "page wider than 1280 px (or the script did not run): {}",
        dom.split("data-scroll-width=")
            .nth(1)
            .map(|s| &s[..s.len().min(12)])
            .unwrap_or("no data-scroll-width")
    );

    let shot = tmp.path().join("report.png");
    let arg = format!("--screenshot={}", shot.display());
    let out = chromium(&browser, &tmp.path().join("profile-shot"), &[&arg], &url);
    assert!(
        out.status.success(),
        "chromium --screenshot failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(
        png.len() > 10_000 && png.starts_with(b"\x89PNG"),
        "screenshot is not a real PNG"
    );
}

#[test]
fn report_of_a_missing_or_corrupt_directory_is_an_error_naming_the_file() {
    let t = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(["report", &t.path().to_string_lossy(), "-o"])
        .arg(t.path().join("r.html"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("results.json") && !err.contains("panicked"), "{err}");
    std::fs::write(t.path().join("results.json"), "{\"schema_version\": 1, \"name\": 5}").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_numasim"))
        .args(["plot", &t.path().to_string_lossy(), "--figure", "sharing", "-o"])
        .arg(t.path().join("f.svg"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("results.json") && err.contains("name"),
        "{err}"
    );
}
