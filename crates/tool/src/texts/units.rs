//! Sizes and durations as the texts print them. Part of the wording: the
//! model reads `223.5KB`, not `228894 bytes`.
//!
//! Two size formatters exist on purpose, each byte-identical to what its
//! texts have always said: [`format_file_size`] (R1's `<persisted-output>`,
//! integer arithmetic, halves rounded up like JavaScript's `toFixed(1)`)
//! and [`format_read_size`] (Read's size limits, float formatting, so an
//! exact half such as 1280 bytes reads `1.2KB`, not `1.3KB`).

/// `formatFileSize` (Claude Code): under 1 KiB `N bytes`; else KB
/// (bytes/1024), MB, GB with one decimal, a trailing `.0` dropped (`2000` →
/// `2KB`, `228894` → `223.5KB`). Rounds half up like JavaScript's
/// `toFixed(1)` on these exact values, using integer arithmetic so no float
/// tie is ever misrounded.
pub fn format_file_size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = KIB * 1024;
    const GIB: u64 = MIB * 1024;
    let (unit_bytes, suffix) = if bytes < KIB {
        return format!("{bytes} bytes");
    } else if bytes < MIB {
        (KIB, "KB")
    } else if bytes < GIB {
        (MIB, "MB")
    } else {
        (GIB, "GB")
    };
    let tenths = (u128::from(bytes) * 10 + u128::from(unit_bytes) / 2) / u128::from(unit_bytes);
    if tenths % 10 == 0 {
        format!("{}{suffix}", tenths / 10)
    } else {
        format!("{}.{}{suffix}", tenths / 10, tenths % 10)
    }
}

/// Read's sizes (file and image limits): bytes, KB, MB or GB with at most
/// one decimal (a trailing `.0` dropped), rounded by Rust's float
/// formatting (see the module docs for how it differs on exact halves).
pub fn format_read_size(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    let (value, unit) = if bytes < 1024 {
        return format!("{bytes} bytes");
    } else if b < 1024.0 * 1024.0 {
        (b / 1024.0, "KB")
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        (b / (1024.0 * 1024.0), "MB")
    } else {
        (b / (1024.0 * 1024.0 * 1024.0), "GB")
    };
    let s = format!("{value:.1}");
    format!("{}{unit}", s.strip_suffix(".0").unwrap_or(&s))
}

/// A duration in milliseconds as Bash's timeout line prints it: `250ms`,
/// `1s`, `1.5s`.
pub fn format_duration_ms(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}s", ms as f64 / 1000.0)
    }
}
