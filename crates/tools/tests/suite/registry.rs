//! The default tool set: every built-in, in the order the model sees it,
//! with its name and its result limit (R1: Claude Code's thresholds).

use orbit_tool::ResultLimit::{self, NeverPersist, PersistOver};
use orbit_tools::builtin::default_tools;

#[test]
fn built_ins_in_order_with_their_result_limits() {
    let registry = default_tools();
    let tools = registry.tools();
    let declared: Vec<(&str, ResultLimit)> = tools
        .iter()
        .map(|tool| (tool.name(), tool.result_limit()))
        .collect();
    let expected = [
        ("Read", NeverPersist),
        ("Write", PersistOver(100_000)),
        ("Edit", PersistOver(100_000)),
        ("NotebookEdit", PersistOver(100_000)),
        ("Bash", PersistOver(30_000)),
        ("BashOutput", PersistOver(30_000)),
        ("KillShell", PersistOver(10_000)),
        ("Glob", PersistOver(100_000)),
        ("Grep", PersistOver(20_000)),
        ("LS", PersistOver(100_000)),
        ("TodoWrite", PersistOver(100_000)),
        ("WebFetch", PersistOver(110_000)),
        ("WebSearch", PersistOver(100_000)),
    ];
    assert_eq!(declared, expected);
    for (name, _) in expected {
        assert!(
            registry.find(name).is_some_and(|t| t.name() == name),
            "{name} is found by its name"
        );
    }
}
