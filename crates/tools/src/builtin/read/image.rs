//! Read of an image (PNG, JPEG, GIF, WebP; issue 35): the bytes come from
//! `model_file` (through `orbit_untrusted`, capped at
//! [`MAX_IMAGE_FILE_BYTES`]); the `image` crate (only those four codecs)
//! is touched only when a Read meets an image.
//!
//! Flow: a model that takes no images gets a one-line text placeholder →
//! the header's dimensions are read (no decode) → an image within
//! [`MAX_IMAGE_EDGE_PX`] on each side (or whose header cannot be sized)
//! and [`MAX_IMAGE_BYTES`] goes back as it is → otherwise it is decoded (allocation capped), scaled to fit
//! [`MAX_IMAGE_EDGE_PX`] and re-encoded (PNG, or JPEG when the PNG is
//! still over the byte cap) before the result pipeline sees it.

use std::io::Cursor;
use std::path::Path;

use base64::Engine as _;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use orbit_protocol::{ImageSource, ToolResultContentBlock};
use orbit_tool::ToolOutput;

use super::{MAX_IMAGE_BYTES, format_size};

/// Largest image file Read decodes to scale it down, in bytes.
pub(crate) const MAX_IMAGE_FILE_BYTES: u64 = 20 * 1024 * 1024;
/// Longest side an image is sent with, in pixels (the API scales larger
/// ones down itself and refuses sides over 8000).
pub(crate) const MAX_IMAGE_EDGE_PX: u32 = 2000;
/// Most memory a decode may allocate, in bytes.
const MAX_DECODE_ALLOC_BYTES: u64 = 512 * 1024 * 1024;
/// JPEG quality of a re-encoded image that was too large as PNG (percent).
const JPEG_QUALITY_PCT: u8 = 80;

/// What Read answers for the image `bytes` (of `media_type`) at `path`.
pub(crate) fn read_image_bytes(
    path: &Path,
    bytes: &[u8],
    media_type: &str,
    takes_images: bool,
) -> ToolOutput {
    let dims = dimensions(bytes);
    if !takes_images {
        let size = format_size(bytes.len() as u64);
        let dims = dims.map_or(String::new(), |(w, h)| format!(", {w}x{h}"));
        return ToolOutput::text(format!(
            "[Image: {} ({media_type}{dims}, {size}) — the current model does not take images, so its content cannot be shown]",
            path.display()
        ));
    }
    // A header orbit cannot size goes as it is (the API judges it).
    let fits = dims.is_none_or(|(w, h)| w <= MAX_IMAGE_EDGE_PX && h <= MAX_IMAGE_EDGE_PX);
    if fits && bytes.len() as u64 <= MAX_IMAGE_BYTES {
        return image_output(media_type, bytes);
    }
    match downscale(bytes) {
        Ok((data, media)) => image_output(media, &data),
        Err(e) => ToolOutput::error(format!("Cannot read {}: {e}", path.display())),
    }
}

/// One image block.
pub(crate) fn image_output(media_type: &str, bytes: &[u8]) -> ToolOutput {
    ToolOutput::blocks(vec![image_block(media_type, bytes)])
}

/// An image block of `bytes`.
pub(crate) fn image_block(media_type: &str, bytes: &[u8]) -> ToolResultContentBlock {
    ToolResultContentBlock::Image {
        source: ImageSource::Base64 {
            media_type: media_type.to_string(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        },
    }
}

/// Width and height from the header, without decoding.
pub(crate) fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

/// The image decoded, scaled to fit [`MAX_IMAGE_EDGE_PX`] and re-encoded
/// within [`MAX_IMAGE_BYTES`], with its media type.
fn downscale(bytes: &[u8]) -> Result<(Vec<u8>, &'static str), String> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODE_ALLOC_BYTES);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| e.to_string())?;
    let img = if img.width() > MAX_IMAGE_EDGE_PX || img.height() > MAX_IMAGE_EDGE_PX {
        img.resize(
            MAX_IMAGE_EDGE_PX,
            MAX_IMAGE_EDGE_PX,
            image::imageops::FilterType::Triangle,
        )
    } else {
        img
    };
    let png = encode(&img, ImageFormat::Png)?;
    if png.len() as u64 <= MAX_IMAGE_BYTES {
        return Ok((png, "image/png"));
    }
    let rgb = DynamicImage::ImageRgb8(img.to_rgb8());
    let mut out = Cursor::new(Vec::new());
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY_PCT)
        .encode_image(&rgb)
        .map_err(|e| e.to_string())?;
    let jpeg = out.into_inner();
    if jpeg.len() as u64 > MAX_IMAGE_BYTES {
        return Err(format!(
            "the image is still {} after scaling down (maximum {})",
            format_size(jpeg.len() as u64),
            format_size(MAX_IMAGE_BYTES)
        ));
    }
    Ok((jpeg, "image/jpeg"))
}

fn encode(img: &DynamicImage, format: ImageFormat) -> Result<Vec<u8>, String> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_large_image_is_scaled_to_the_edge_limit() {
        let img = DynamicImage::ImageRgb8(image::RgbImage::new(3000, 1500));
        let png = encode(&img, ImageFormat::Png).unwrap();
        assert_eq!(dimensions(&png), Some((3000, 1500)));
        let (small, media) = downscale(&png).unwrap();
        assert_eq!(media, "image/png");
        assert_eq!(dimensions(&small), Some((2000, 1000)));
        let out = read_image_bytes(Path::new("a.png"), &png, "image/png", false);
        assert!(
            out.content.as_text().contains("3000x1500"),
            "{:?}",
            out.content
        );
    }
}
