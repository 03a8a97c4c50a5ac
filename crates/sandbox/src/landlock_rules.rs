//! The Landlock layer: which paths a sandboxed process may read, execute
//! and write, and which TCP ports it may connect to.
//!
//! Landlock only grants (an allow list inherited by everything below a
//! rule), so "read everything except ~/.ssh" is built by walking down from
//! `/` towards each denied path and granting every sibling on the way
//! ([`read_grants`]); the denied path itself gets no rule. Writes are
//! granted on the writable roots. Best effort: a kernel that lacks a
//! Landlock feature enforces what it has, and the status says how much
//! (the parent has already told the user once, see `crate::probe`, which
//! reads the kernel's version through [`landlock_abi`]).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath,
    PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};

use crate::SandboxError;
use crate::policy::NetworkPolicy;

/// The newest Landlock ABI this code was written and tested against.
const TARGET_ABI: ABI = ABI::V6;

/// `landlock_create_ruleset` flag that asks for the ABI version.
const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;

/// Character devices every command may write (`>/dev/null` etc.).
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// Every path to grant read on so that all of `/` is readable except
/// `deny` (and what lies below each). Missing deny paths change nothing.
pub(crate) fn read_grants(deny: &[PathBuf]) -> Vec<PathBuf> {
    let deny: Vec<PathBuf> = deny.iter().filter_map(|p| p.canonicalize().ok()).collect();
    let mut out = Vec::new();
    walk(Path::new("/"), &deny, &mut out);
    out
}

fn walk(dir: &Path, deny: &[PathBuf], out: &mut Vec<PathBuf>) {
    if deny.iter().any(|d| d == dir) {
        return;
    }
    if !deny.iter().any(|d| d.starts_with(dir)) {
        out.push(dir.to_path_buf());
        return;
    }
    // A denied path lies strictly below: grant each entry on its own.
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        walk(&entry.path(), deny, out);
    }
}

/// Builds the Landlock ruleset: read+execute on `reads`, read+write on
/// `writes`, network per `network`. Returns its fd (None: the kernel has no
/// Landlock), for `crate::child::restrict` to enforce after the fork; the
/// parent itself is not restricted.
pub(crate) fn ruleset(
    reads: &[PathBuf],
    writes: &[PathBuf],
    network: NetworkPolicy,
) -> Result<Option<OwnedFd>, SandboxError> {
    let abi = TARGET_ABI;
    // Device ioctls are left to seccomp (TIOCSTI); handling them here would
    // break terminal programs for no gain.
    let fs_all = AccessFs::from_all(abi) & !AccessFs::IoctlDev;
    let read = AccessFs::from_read(abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(fs_all)
        .map_err(landlock_error)?
        .scope(Scope::from_all(abi))
        .map_err(landlock_error)?;
    if network != NetworkPolicy::On {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(landlock_error)?;
    }
    let mut created = ruleset.create().map_err(landlock_error)?;
    for (paths, access) in [(reads, read), (writes, fs_all)] {
        for path in paths {
            created = add_path(created, path, access)?;
        }
    }
    for dev in WRITABLE_DEVICES {
        created = add_path(created, Path::new(dev), fs_all)?;
    }
    if let NetworkPolicy::Proxy(port) = network {
        created = created
            .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
            .map_err(landlock_error)?;
    }
    Ok(created.into())
}

/// The kernel's Landlock ABI version (None: no Landlock).
#[allow(unsafe_code)]
pub(crate) fn landlock_abi() -> Option<i32> {
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns the
    // ABI version (or -1 with errno); no memory is passed.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (abi > 0).then(|| i32::try_from(abi).unwrap_or(i32::MAX))
}

/// The bits of every file-system right this kernel's Landlock knows (up to
/// [`TARGET_ABI`]): what a write rule added after the fork grants.
pub(crate) fn all_fs_access_bits() -> u64 {
    let kernel = landlock_abi().map_or(ABI::Unsupported, ABI::from);
    let abi = if kernel < TARGET_ABI {
        kernel
    } else {
        TARGET_ABI
    };
    (AccessFs::from_all(abi) & !AccessFs::IoctlDev).bits()
}

/// Adds a rule for `path` (skipped when it cannot be opened: a path that
/// does not exist grants nothing). Files get only the file rights.
fn add_path(
    created: landlock::RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<landlock::RulesetCreated, SandboxError> {
    let Ok(fd) = PathFd::new(path) else {
        return Ok(created);
    };
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(TARGET_ABI)
    };
    created
        .add_rule(PathBeneath::new(fd, access))
        .map_err(landlock_error)
}

fn landlock_error(e: impl std::fmt::Display) -> SandboxError {
    SandboxError::Landlock(e.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn read_grants_skip_exactly_the_denied_path() {
        let home = tempfile::tempdir().expect("tempdir");
        let root = home.path().canonicalize().expect("canonical");
        for d in ["a/secret", "a/open", "b"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        std::fs::write(root.join("a/file"), "x").expect("write");
        let grants = read_grants(&[root.join("a/secret"), root.join("missing")]);
        assert!(!grants.iter().any(|g| g.starts_with(root.join("a/secret"))));
        for open in ["a/open", "a/file", "b"] {
            assert!(grants.contains(&root.join(open)), "{open}");
        }
        // No grant covers the denied path from above.
        assert!(
            !grants
                .iter()
                .any(|g| root.join("a/secret").starts_with(g) && *g != root.join("a/secret"))
        );
    }

    #[test]
    fn nothing_denied_is_one_grant_of_root() {
        assert_eq!(read_grants(&[]), vec![PathBuf::from("/")]);
    }
}
