//! `--setting-sources user,project,local`: which of those load; managed
//! settings and `--settings` always do.

use orbit_config::{Env, SettingSources, Settings, SettingsLocations, SettingsSource as S};

#[test]
fn parse_lists_and_rejects_unknown_names() {
    let all = SettingSources::parse("user, project,local").unwrap();
    assert_eq!(all, SettingSources::all());
    let user = SettingSources::parse("user").unwrap();
    assert!(user.includes(S::User) && !user.includes(S::Project) && !user.includes(S::Local));
    let none = SettingSources::parse("").unwrap();
    assert!(!none.includes(S::User) && none.includes(S::Managed) && none.includes(S::Flag));
    let err = SettingSources::parse("user,policy").unwrap_err();
    assert_eq!(
        err.to_string(),
        "--setting-sources: unknown source `policy` (expected user, project or local)"
    );
}

#[test]
fn the_filter_skips_files_of_excluded_sources() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let write = |path: std::path::PathBuf, model: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!(r#"{{"model": "{model}"}}"#)).unwrap();
    };
    write(home.path().join(".orbit/settings.json"), "user");
    write(project.path().join(".orbit/settings.json"), "project");
    write(project.path().join(".orbit/settings.local.json"), "local");
    write(home.path().join("managed.json"), "managed");
    let env = Env::from_pairs([("HOME", home.path())]);
    let mut locations = SettingsLocations::standard(&env, project.path()).unwrap();
    locations.managed = vec![home.path().join("managed.json")];
    let sources_of = |filter: &str, flag: Option<&str>| -> Vec<S> {
        let filter = SettingSources::parse(filter).unwrap();
        Settings::load(&locations, flag, filter)
            .unwrap()
            .files()
            .iter()
            .map(|f| f.source)
            .collect()
    };
    assert_eq!(
        sources_of("user,project,local", None),
        [S::Managed, S::Local, S::Project, S::User]
    );
    assert_eq!(sources_of("project", None), [S::Managed, S::Project]);
    assert_eq!(
        sources_of("user", Some("{}")),
        [S::Managed, S::Flag, S::User]
    );
    assert_eq!(sources_of("", None), [S::Managed]);
    // A broken file of an excluded source is not even read.
    std::fs::write(project.path().join(".orbit/settings.json"), "{oops").unwrap();
    assert_eq!(sources_of("user", None), [S::Managed, S::User]);
}
