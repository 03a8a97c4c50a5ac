//! Link options of the `orbit` binary that cut its resident memory.
//!
//! Most of orbit's RSS is file-backed: the pages of the binary the kernel
//! maps in on first touch, 64 KiB at a time (fault-around). Two link
//! options shrink what a run touches, on x86_64 Linux with LLD (Rust's
//! default linker there), native builds only:
//! - `-z pack-relative-relocs` (DT_RELR): the dynamic relocation table the
//!   loader reads in full at every start shrinks from ≈ 1.2 MiB to a few
//!   KiB. Needs glibc ≥ 2.36 at run time, so only when the build host has it.
//! - the functions a headless / SDK run executes (traced by
//!   `bench/link-order.sh`) laid out next to each other, so they share
//!   pages instead of being spread over the whole text. Two lists:
//!   `link/orbit.order`, every executed function by its exact name
//!   (`--symbol-ordering-file`; names a build lacks are skipped), and
//!   `link/orbit.globs`, the names without their hash of the executed
//!   functions whose every instance ran, written as a linker script in
//!   `OUT_DIR` that puts their sections in `.text.orbit_hot` before `.text`
//!   (`INSERT BEFORE`: the default layout otherwise). Exact names go stale
//!   whenever a crate's dependencies, features or the toolchain change
//!   (the hash in every name changes: 843 of 3,347 names still matched a
//!   day's merges later); the globs survive that, and
//!   `ci/check-link-order` flags functions renamed or removed.
//!
//! `ORBIT_LINK_MAP=PATH` also writes the linker's map file (used by
//! `bench/link-order.sh`). `ORBIT_LINK_LAYOUT=0` turns both options off,
//! `ORBIT_LINK_ORDER=PATH` takes the lists from PATH and its `.globs`
//! sibling (to measure them).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=ORBIT_LINK_MAP");
    println!("cargo:rerun-if-env-changed=ORBIT_LINK_LAYOUT");
    println!("cargo:rerun-if-env-changed=ORBIT_LINK_ORDER");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    // LLD is Rust's default linker only on this target; a native build
    // links against (and runs on) the build host's glibc.
    if target != "x86_64-unknown-linux-gnu" || target != host {
        return;
    }
    if let Ok(map) = std::env::var("ORBIT_LINK_MAP") {
        println!("cargo:rustc-link-arg-bin=orbit=-Wl,-Map={map}");
    }
    if std::env::var("ORBIT_LINK_LAYOUT").is_ok_and(|v| v == "0") {
        return;
    }
    if host_glibc_has_relr() {
        println!("cargo:rustc-link-arg-bin=orbit=-Wl,-z,pack-relative-relocs");
    }
    let link = Path::new(env!("CARGO_MANIFEST_DIR")).join("link");
    let order = std::env::var_os("ORBIT_LINK_ORDER")
        .filter(|p| !p.is_empty())
        .map_or_else(|| link.join("orbit.order"), PathBuf::from);
    let globs = order.with_extension("globs");
    println!("cargo:rerun-if-changed={}", order.display());
    println!("cargo:rerun-if-changed={}", globs.display());
    if order.is_file() {
        println!(
            "cargo:rustc-link-arg-bin=orbit=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bin=orbit=-Wl,--no-warn-symbol-ordering");
    }
    let (Ok(list), Some(out)) = (std::fs::read_to_string(&globs), std::env::var_os("OUT_DIR"))
    else {
        return;
    };
    let script = Path::new(&out).join("orbit-hot.ld");
    if std::fs::write(&script, hot_text_script(&list)).is_ok() {
        println!("cargo:rustc-link-arg-bin=orbit=-Wl,-T,{}", script.display());
    }
}

/// The linker script placing the sections of the listed functions (names
/// without their hash) in an output section of their own before `.text`,
/// in the list's order; the rest of the layout is the linker's default.
fn hot_text_script(list: &str) -> String {
    let mut script = String::from("SECTIONS {\n  .text.orbit_hot : {\n");
    for stem in list.lines().map(str::trim).filter(|s| glob_safe(s)) {
        script.push_str(&format!("    *(.text.{stem}*)\n"));
    }
    script.push_str("  }\n} INSERT BEFORE .text;\n");
    script
}

/// A mangled name the linker script's lexer and glob take literally.
fn glob_safe(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'))
}

/// glibc ≥ 2.36 (the first to apply DT_RELR), from `getconf`.
fn host_glibc_has_relr() -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.trim().strip_prefix("glibc ").unwrap_or("");
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}
