//! Builds numasim's QEMU tracer plugin (`tracer/numasim_qemu_plugin.c`) with the system C
//! compiler so `numasim trace capture` can carry it inside the binary. The tracer is optional:
//! without a C compiler (or if the plugin does not compile) the build still succeeds, with a
//! warning, and `trace capture` explains what was missing. It needs no QEMU source: the plugin
//! declares the few QEMU API functions it calls itself (`tracer/numasim_qemu_api.h`).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(numasim_tracer)");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let tracer = manifest.join("../../tracer");
    for f in ["numasim_qemu_plugin.c", "numasim_qemu_api.h", "numasim_roi.h"] {
        println!("cargo::rerun-if-changed={}", tracer.join(f).display());
    }
    println!("cargo::rerun-if-env-changed=CC");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os != "linux" {
        println!("cargo::warning=numasim trace capture needs Linux (QEMU user mode); the tracer is not built");
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("libnumasim_qemu.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args([
            "-O2",
            "-std=gnu11",
            "-Wall",
            "-Wextra",
            "-fPIC",
            "-shared",
            "-fvisibility=hidden",
            "-o",
        ])
        .arg(&out)
        .arg(tracer.join("numasim_qemu_plugin.c"))
        .arg("-lpthread")
        .status();
    match status {
        Ok(s) if s.success() => {
            println!("cargo::rustc-cfg=numasim_tracer");
            println!("cargo::rustc-env=NUMASIM_QEMU_PLUGIN_SO={}", out.display());
        }
        Ok(s) => {
            println!("cargo::warning=the QEMU tracer plugin did not compile ({cc}: {s}); trace capture is disabled")
        }
        Err(e) => println!(
            "cargo::warning=no C compiler ({cc}: {e}); numasim trace capture is disabled (apt-get install gcc)"
        ),
    }
}
