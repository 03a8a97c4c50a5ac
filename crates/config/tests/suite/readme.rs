//! The README's Configuration table lists every variable of `ENV_VARS`.

use orbit_config::ENV_VARS;

#[test]
fn every_env_var_is_in_the_readme_configuration_section() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let start = readme
        .find("## Configuration")
        .expect("a Configuration section");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let section = &section[..end];
    let missing: Vec<&str> = ENV_VARS
        .iter()
        .map(|v| v.name)
        .filter(|name| !section.contains(&format!("| `{name}`")))
        .collect();
    assert!(missing.is_empty(), "not in the README's table: {missing:?}");
    let mut names: Vec<&str> = ENV_VARS.iter().map(|v| v.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), ENV_VARS.len(), "a variable is listed twice");
}
