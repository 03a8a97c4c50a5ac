//! Link options of the `orbit` binary that cut its resident memory.
//!
//! Most of orbit's RSS is file-backed: the pages of the binary the kernel
//! maps in on first touch, 64 KiB at a time (fault-around). Two link
//! options shrink what a run touches, on x86_64 Linux with LLD (Rust's
//! default linker there), native builds only:
//! - `-z pack-relative-relocs` (DT_RELR): the dynamic relocation table the
//!   loader reads in full at every start shrinks from ≈ 1.2 MiB to a few
//!   KiB. Needs glibc ≥ 2.36 at run time, so only when the build host has it.
//! - `--symbol-ordering-file link/orbit.order`: the functions a headless /
//!   SDK run executes are laid out next to each other, so they share pages
//!   instead of being spread over the whole text. Regenerate the list with
//!   `bench/link-order.sh`; names missing from a build are ignored (a stale
//!   list only loses some of the effect).
//!
//! `ORBIT_LINK_MAP=PATH` also writes the linker's map file (used by
//! `bench/link-order.sh`). `ORBIT_LINK_LAYOUT=0` turns both options off (to
//! measure them).

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=ORBIT_LINK_MAP");
    println!("cargo:rerun-if-env-changed=ORBIT_LINK_LAYOUT");
    println!("cargo:rerun-if-changed=link/orbit.order");
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
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/orbit.order");
    if order.is_file() {
        println!(
            "cargo:rustc-link-arg-bin=orbit=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bin=orbit=-Wl,--no-warn-symbol-ordering");
    }
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
