//! The five C math functions the `orbit` binary calls (`expf`, `log10f`,
//! `log2`, `pow`, `sinf`: from the standard library's float methods, used
//! by dependencies such as the image decoder), defined here from the
//! pure-Rust `libm` crate instead of taken from the system's `libm.so.6`.
//!
//! Why: with `libm.so.6` linked, every start maps it and, since Rust binaries
//! bind all symbols at load (`BIND_NOW`, full RELRO), the dynamic loader runs
//! each of these functions' IFUNC resolvers (they pick an FMA/AVX2 variant),
//! faulting in ≈ 300 KiB of libm's pages that a run never uses: a fifth of
//! the way from the 3-turn run's 10.3 MiB to issue 40's 10 MiB
//! (docs/PERFORMANCE.md, "Peak RSS and the link layout"). A definition in the
//! executable satisfies the references at link time, so with `--as-needed`
//! (rustc's default) the linker leaves `libm.so.6` out of the binary.
//! The `libm` crate is musl's implementations: within 1 ulp, like glibc's.
//!
//! Data flow: none; linked by symbol name. The cli suite's
//! `binary_links` test fails when the binary needs `libm.so.6` again.
#![allow(unsafe_code)] // `no_mangle` is an unsafe attribute in edition 2024.

/// `expf(3)`.
#[unsafe(no_mangle)]
pub extern "C" fn expf(x: f32) -> f32 {
    libm::expf(x)
}

/// `log10f(3)`.
#[unsafe(no_mangle)]
pub extern "C" fn log10f(x: f32) -> f32 {
    libm::log10f(x)
}

/// `log2(3)`.
#[unsafe(no_mangle)]
pub extern "C" fn log2(x: f64) -> f64 {
    libm::log2(x)
}

/// `pow(3)`.
#[unsafe(no_mangle)]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// `sinf(3)`.
#[unsafe(no_mangle)]
pub extern "C" fn sinf(x: f32) -> f32 {
    libm::sinf(x)
}
