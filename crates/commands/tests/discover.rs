//! Command discovery over real directories, hostile files included: a
//! FIFO, a link to `/dev/zero`, a link out of the project and a 100 MB file
//! are each skipped with one warning (nothing blocks or fills memory), a
//! project's link to `/` is not walked, `CLAUDE_CONFIG_DIR` replaces
//! `~/.claude`, and a later directory wins a name clash.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::symlink;
use std::time::{Duration, Instant};

use orbit_commands::{CommandSet, CommandSources, Scope};
use orbit_test_support::files::{mkfifo, put};

#[test]
fn hostile_command_files_are_skipped_with_one_warning_each() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let claude = tempfile::tempdir().unwrap();
    let p = project.path();
    let commands = p.join(".claude/commands");
    put(
        p,
        ".claude/commands/ok.md",
        "---\nargument-hint: [file]\n---\nFine $0.\n",
    );
    put(p, ".claude/commands/sub/deep.md", "Deep.\n");
    put(p, ".orbit/commands/ok.md", "Orbit's wins.\n");
    mkfifo(&commands.join("fifo.md"));
    symlink("/dev/zero", commands.join("zero.md")).unwrap();
    put(home.path(), "secret.md", "SECRET\n");
    symlink(home.path().join("secret.md"), commands.join("out.md")).unwrap();
    std::fs::File::create(commands.join("big.md"))
        .unwrap()
        .set_len(100 * 1024 * 1024)
        .unwrap();
    symlink("/", commands.join("root")).unwrap();
    put(claude.path(), "commands/standup.md", "Standup.\n");
    put(home.path(), ".claude/commands/ignored.md", "Not read.\n");
    put(home.path(), ".orbit/commands/mine.md", "Mine.\n");
    let sources = CommandSources {
        project_root: p.to_path_buf(),
        home: Some(home.path().to_path_buf()),
        claude_config_dir: Some(claude.path().to_path_buf()),
    };
    let started = Instant::now();
    let set = CommandSet::load(&sources);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(set.names(), ["mine", "ok", "standup", "sub:deep"]);
    let ok = set.find("ok").unwrap();
    assert_eq!(ok.body, "Orbit's wins.\n");
    assert_eq!(ok.scope, Scope::Project);
    assert_eq!(set.find("standup").unwrap().scope, Scope::User);
    for name in ["fifo.md", "zero.md", "out.md", "big.md"] {
        let lines = set.warnings.iter().filter(|w| w.contains(name)).count();
        assert_eq!(lines, 1, "{name}: {:?}", set.warnings);
    }
    assert_eq!(set.warnings.len(), 4, "{:?}", set.warnings);
    assert!(!set.commands().iter().any(|c| c.body.contains("SECRET")));
}
