//! What the `orbit` binary links against: no `libm.so.6` (its five math
//! functions come from `crates/cli/src/libm_shim.rs`, so the loader neither
//! maps libm nor runs its IFUNC resolvers at every start), and the C library
//! it does need — named the same way, so the scan below can see a library.

/// The shared libraries the binary's dynamic section names, found as the
/// `.so.` names in its bytes (the dynamic string table).
fn names_library(binary: &[u8], soname: &str) -> bool {
    binary.windows(soname.len()).any(|w| w == soname.as_bytes())
}

#[test]
fn orbit_needs_the_c_library_but_not_libm() {
    let binary = std::fs::read(env!("CARGO_BIN_EXE_orbit")).unwrap();
    assert!(
        names_library(&binary, "libc.so.6"),
        "the scan finds no libc.so.6: it cannot see a needed library"
    );
    assert!(
        !names_library(&binary, "libm.so.6"),
        "orbit needs libm.so.6 again: a new C math function? add it to crates/cli/src/libm_shim.rs"
    );
}
