//! What kind of file Read is looking at, from its first bytes and its
//! extension: an image it can show (PNG, JPEG, GIF, WebP by magic bytes),
//! a binary file it refuses, or text.

use std::path::Path;

/// How many leading bytes are inspected for NULs, in bytes.
pub(crate) const SNIFF_BYTES: usize = 8 * 1024;

/// Extensions of formats that are binary even when their first bytes hold
/// no NUL. Images are checked by magic bytes before this list.
const BINARY_EXTENSIONS: &[&str] = &[
    "7z", "a", "aac", "avi", "bin", "bmp", "bz2", "class", "dll", "dmg", "doc", "docx", "dylib",
    "eot", "exe", "flac", "gif", "gz", "ico", "iso", "jar", "jpeg", "jpg", "lib", "m4a", "mkv",
    "mov", "mp3", "mp4", "o", "obj", "odt", "ogg", "otf", "pdf", "png", "ppt", "pptx", "psd",
    "pyc", "pyo", "rar", "so", "sqlite", "tar", "tgz", "tiff", "ttf", "war", "wasm", "wav", "webm",
    "webp", "woff", "woff2", "xls", "xlsx", "xz", "zip", "zst",
];

/// The image media type of `head` (a file's first bytes), if it is one.
pub(crate) fn image_media_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// True for a known binary extension or a NUL byte in `head`.
pub(crate) fn is_binary(path: &Path, head: &[u8]) -> bool {
    let ext = extension(path);
    (!ext.is_empty() && BINARY_EXTENSIONS.contains(&ext.as_str())) || head.contains(&0)
}

/// The lowercase extension, or "".
pub(crate) fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_name_the_image_type() {
        assert_eq!(
            image_media_type(b"\x89PNG\r\n\x1a\n...."),
            Some("image/png")
        );
        assert_eq!(
            image_media_type(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some("image/jpeg")
        );
        assert_eq!(image_media_type(b"GIF89a.."), Some("image/gif"));
        assert_eq!(image_media_type(b"GIF87a.."), Some("image/gif"));
        assert_eq!(
            image_media_type(b"RIFF\x10\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(image_media_type(b"RIFF\x10\0\0\0WAVE"), None);
        assert_eq!(image_media_type(b"hello"), None);
    }

    #[test]
    fn binary_by_nul_or_extension() {
        assert!(is_binary(Path::new("a.txt"), b"ab\0cd"));
        assert!(is_binary(Path::new("a.ZIP"), b"PK"));
        assert!(!is_binary(Path::new("a.rs"), b"fn main() {}"));
        assert!(!is_binary(Path::new("Makefile"), b"all:"));
    }
}
