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
//!   `link/orbit.globs`, the same functions by their names with the
//!   crate hashes left out (`*`), written as a linker script in `OUT_DIR`
//!   that puts their sections (`.text.NAME`, `.text.unlikely.NAME`) in
//!   `.text.orbit_hot` before `.text` (`INSERT BEFORE`: the default layout
//!   otherwise). The workspace builds with v0 symbol names
//!   (`.cargo/config.toml`), which spell a generic instance by its
//!   arguments; a legacy name ends in a hash of its crate's metadata that
//!   every dependency, feature or toolchain change renews (843 of 3,347
//!   exact names still matched a day's merges later). The globs survive
//!   that, and `ci/check-link-order` flags functions renamed or removed.
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
    if std::env::var("PROFILE").is_ok_and(|p| p == "release") && !v0_names() {
        // RUSTFLAGS (or another rustflags source) replaced
        // .cargo/config.toml's: legacy names, which the lists do not match.
        println!(
            "cargo:warning=orbit's link layout needs v0 symbol names: add `-C \
             symbol-mangling-version=v0` to RUSTFLAGS (as .cargo/config.toml does) \
             or this build's resident memory is higher"
        );
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
        script.push_str(&format!("    *(.text.{stem}* .text.unlikely.{stem}*)\n"));
    }
    script.push_str("  }\n} INSERT BEFORE .text;\n");
    script
}

/// A mangled name (its crate hashes `*`, see bench/link_order.py) that the
/// linker script's lexer takes as one glob.
fn glob_safe(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'*'))
}

/// Whether the crates are built with v0 symbol names (the rustflags cargo
/// passes, as `CARGO_ENCODED_RUSTFLAGS`: 0x1f-separated).
fn v0_names() -> bool {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\x1f').collect();
    flags.contains(&"symbol-mangling-version=v0") || flags.contains(&"-Csymbol-mangling-version=v0")
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
