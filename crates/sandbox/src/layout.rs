//! The concrete paths of a policy for a command started in a directory
//! ([`layout`]): what it may write, what stays visible, its private temp
//! dir, what is hidden and what is protected inside the writable roots.
//! Every path is canonical and exists; `crate::prepare` turns them into
//! the mount plan and the Landlock rules.

use std::path::{Path, PathBuf};

use crate::policy::{PROTECTED_SUBPATHS, SandboxMode, SandboxPolicy};

/// The paths an applied policy ended up with (for tests and debugging).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Read-write roots (the temp dir comes on top, see [`crate::Applied`]).
    pub writes: Vec<PathBuf>,
    /// The workspace roots that stay visible in read-only mode.
    pub visible: Vec<PathBuf>,
    /// The session's private temp dir (canonical).
    pub private_tmp: Option<PathBuf>,
    /// Denied paths that exist (canonical).
    pub hidden: Vec<PathBuf>,
    /// Read-only paths inside the writable roots that exist.
    pub protected: Vec<PathBuf>,
}

/// The concrete paths of `policy` for a command started in `cwd`.
pub fn layout(policy: &SandboxPolicy, cwd: &Path, home: Option<&Path>) -> Layout {
    let canonical = |p: &Path| p.canonicalize().ok();
    let mut workspace = policy.writable_roots.clone();
    workspace.push(cwd.to_path_buf());
    let workspace: Vec<PathBuf> = workspace.iter().filter_map(|p| canonical(p)).collect();
    let writes: Vec<PathBuf> = match policy.mode {
        SandboxMode::WorkspaceWrite if policy.writable_roots.is_empty() => {
            canonical(cwd).into_iter().collect()
        }
        SandboxMode::WorkspaceWrite => policy
            .writable_roots
            .iter()
            .filter_map(|p| canonical(p))
            .collect(),
        SandboxMode::ReadOnly | SandboxMode::DangerFullAccess => Vec::new(),
    };
    let protected = writes
        .iter()
        .flat_map(|r| PROTECTED_SUBPATHS.iter().map(move |s| r.join(s)))
        .filter(|p| p.exists())
        .collect();
    let mut visible = workspace;
    visible.extend(home.and_then(canonical));
    let hidden = policy
        .deny_read_paths(home)
        .iter()
        .filter_map(|p| canonical(p))
        .collect();
    Layout {
        writes,
        visible,
        private_tmp: policy.private_tmp.as_deref().and_then(canonical),
        hidden,
        protected,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// Which paths each mode writes, keeps visible, protects and hides,
    /// for one tree.
    #[test]
    fn layout_per_mode() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (ws, home, temp) = (root.join("ws"), root.join("home"), root.join("tmp"));
        for d in [
            ws.join(".git/hooks"),
            ws.join(".claude"),
            home.join(".ssh"),
            temp.clone(),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let cases = [
            (SandboxMode::WorkspaceWrite, vec![ws.clone()], 2),
            (SandboxMode::ReadOnly, vec![], 0),
        ];
        for (mode, writes, protected) in cases {
            let policy = SandboxPolicy {
                deny_read: vec![root.join("missing")],
                private_tmp: Some(temp.clone()),
                ..SandboxPolicy::new(mode)
            };
            let l = layout(&policy, &ws, Some(&home));
            assert_eq!(l.writes, writes, "{mode:?}");
            assert_eq!(l.visible, vec![ws.clone(), home.clone()], "{mode:?}");
            assert_eq!(l.private_tmp.as_ref(), Some(&temp), "{mode:?}");
            assert_eq!(l.protected.len(), protected, "{mode:?}: {:?}", l.protected);
            // Only the deny paths that exist are hidden.
            assert_eq!(l.hidden, vec![home.join(".ssh")], "{mode:?}");
        }
    }
}
