//! Settings files on disk: the standard locations, what a malformed file
//! reports, unknown keys, `--settings FILE|JSON`.

use std::path::Path;

use super::common::Dirs;
use orbit_config::{
    ConfigError, Env, SettingSources, Settings, SettingsFile, SettingsLocations,
    SettingsSource as S,
};

impl Dirs {
    fn locations(&self) -> SettingsLocations {
        let mut l = SettingsLocations::standard(&self.env(), self.project.path()).unwrap();
        // Tests cannot write /etc: managed files live in the home here.
        l.managed = vec![self.home.path().join("managed.json")];
        l
    }

    fn write(&self, base: &Path, rel: &str, text: &str) -> String {
        let path = base.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    /// The error of loading the settings (and `--settings FLAG`), which
    /// must fail.
    fn load_error(&self, flag: Option<&str>) -> ConfigError {
        Settings::load(&self.locations(), flag, SettingSources::all()).unwrap_err()
    }

    /// [`Dirs::write`], then [`Dirs::load_error`]: the file's path and why
    /// it does not load.
    fn bad_file(&self, base: &Path, rel: &str, text: &str) -> (String, ConfigError) {
        let path = self.write(base, rel, text);
        (path, self.load_error(None))
    }
}

#[test]
fn standard_locations_are_the_issue_12_paths() {
    let env = Env::from_pairs([("HOME", "/h"), ("ORBIT_HOME", "/data")]);
    let l = SettingsLocations::standard(&env, Path::new("/p")).unwrap();
    let shown = |paths: &[std::path::PathBuf]| -> Vec<String> {
        paths.iter().map(|p| p.display().to_string()).collect()
    };
    assert_eq!(
        shown(l.paths(S::Managed)),
        [
            "/etc/orbit/managed-settings.json",
            "/etc/claude-code/managed-settings.json"
        ]
    );
    assert_eq!(
        shown(l.paths(S::Local)),
        [
            "/p/.orbit/settings.local.json",
            "/p/.claude/settings.local.json"
        ]
    );
    assert_eq!(
        shown(l.paths(S::Project)),
        ["/p/.orbit/settings.json", "/p/.claude/settings.json"]
    );
    let user = shown(l.paths(S::User));
    assert_eq!(user.len(), 3, "{user:?}");
    assert_eq!(user[0], "/data/settings.json");
    // The rules saved from orbit's dialog for this project, by its path.
    assert!(
        user[1].starts_with("/data/project-permissions/p-"),
        "{user:?}"
    );
    assert_eq!(user[2], "/h/.claude/settings.json");
    assert!(l.paths(S::Flag).is_empty());
}

#[test]
fn existing_files_load_in_precedence_order_and_missing_ones_are_skipped() {
    let d = Dirs::new();
    let p = d.project.path();
    let h = d.home.path();
    d.write(h, ".orbit/settings.json", r#"{"model": "orbit-user"}"#);
    d.write(
        h,
        ".claude/settings.json",
        r#"{"model": "claude-user", "hooks": {"x": 1}}"#,
    );
    d.write(
        p,
        ".claude/settings.json",
        r#"{"permissions": {"allow": ["Read"]}}"#,
    );
    d.write(p, ".orbit/settings.local.json", "  \n");
    d.write(h, "managed.json", r#"{"env": {"A": "1"}}"#);
    let s = Settings::load(
        &d.locations(),
        Some(r#"{"model": "inline"}"#),
        SettingSources::all(),
    )
    .unwrap();
    let order: Vec<(S, bool)> = s
        .files()
        .iter()
        .map(|f| (f.source, f.path.is_some()))
        .collect();
    assert_eq!(
        order,
        [
            (S::Managed, true),
            (S::Flag, false),
            (S::Local, true),
            (S::Project, true),
            (S::User, true),
            (S::User, true)
        ]
    );
    assert_eq!(s.model().unwrap().value, "inline");
    // orbit's user file wins over Claude Code's; unknown keys stay in `raw`.
    let users: Vec<_> = s.files().iter().filter(|f| f.source == S::User).collect();
    assert_eq!(users[0].values.model.as_deref(), Some("orbit-user"));
    assert_eq!(users[1].raw["hooks"]["x"], 1);
    // Nothing at all: no files, no error.
    let empty = Dirs::new();
    assert!(
        Settings::load(&empty.locations(), None, SettingSources::all())
            .unwrap()
            .files()
            .is_empty()
    );
}

#[test]
fn a_malformed_file_is_an_error_with_path_line_and_column() {
    let d = Dirs::new();
    let (path, err) = d.bad_file(
        d.project.path(),
        ".orbit/settings.json",
        "{\n  \"model\": \"x\",\n  \"env\": {\"A\" 1}\n}\n",
    );
    assert_eq!(
        err.to_string(),
        format!("invalid settings in {path}:3:15: expected `:`")
    );
    assert!(matches!(
        err,
        ConfigError::Parse {
            line: 3,
            column: 15,
            ..
        }
    ));
}

#[test]
fn a_rule_that_does_not_parse_is_an_error_at_its_place() {
    // (document, expected message after the path)
    let table = [
        (
            "{\"permissions\": {\n  \"allow\": [\"Read\"],\n  \"deny\": [\"Read\", \"Bash(rm:*\"]\n}}",
            ":3:30: expected `)` at the end of the rule in permissions.deny rule `Bash(rm:*`",
        ),
        (
            "{\"permissions\": {\"ask\": [\"WebFetch(example.com)\"]}}",
            ":1:36: expected `domain:HOST` in permissions.ask rule `WebFetch(example.com)`",
        ),
        (
            "{\"permissions\": {\"deny\": [\"Bash\"], \"allow\": [\"Bash(a; b)\"]}}",
            ":1:52: not a command pattern (an unquoted operator, expansion or unterminated quote) in permissions.allow rule `Bash(a; b)`",
        ),
    ];
    for (doc, want) in table {
        let err = SettingsFile::parse(S::Project, "p.json", None, doc).unwrap_err();
        assert_eq!(err.to_string(), format!("p.json{want}"), "{doc}");
    }
}

#[test]
fn a_wrongly_typed_known_key_is_an_error_too() {
    let d = Dirs::new();
    let (path, err) = d.bad_file(
        d.home.path(),
        ".claude/settings.json",
        "{\"permissions\": {\"allow\": \"Read\"}}",
    );
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("invalid settings in {path}:1:")),
        "{text}"
    );
    assert!(text.contains("expected a sequence"), "{text}");
    // A top-level value that is not an object.
    let err = SettingsFile::parse(S::User, "u.json", None, "[1]").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid settings in u.json:1:1: expected a JSON object of settings, got an array"
    );
    // env values: strings, numbers and booleans; not objects.
    let ok =
        SettingsFile::parse(S::User, "u.json", None, r#"{"env": {"N": 5, "B": true}}"#).unwrap();
    assert_eq!(ok.values.env["N"], "5");
    assert_eq!(ok.values.env["B"], "true");
    let err = SettingsFile::parse(S::User, "u.json", None, r#"{"env": {"O": {}}}"#).unwrap_err();
    assert!(err.to_string().contains("env.O must be a string"), "{err}");
}

#[test]
fn an_unreadable_file_is_an_error_not_skipped() {
    let d = Dirs::new();
    // A directory where the file should be.
    std::fs::create_dir_all(d.project.path().join(".orbit/settings.json")).unwrap();
    let err = d.load_error(None);
    assert!(
        err.to_string().starts_with("cannot read settings file ")
            && err.to_string().contains(".orbit/settings.json"),
        "{err}"
    );
}

#[test]
fn the_settings_flag_takes_a_file_or_inline_json() {
    let d = Dirs::new();
    let path = d.write(d.project.path(), "extra.json", r#"{"provider": "openai"}"#);
    let s = Settings::load(&d.locations(), Some(&path), SettingSources::all()).unwrap();
    assert_eq!(s.files()[0].source, S::Flag);
    assert_eq!(s.provider().unwrap().origin.to_string(), path);
    // A missing --settings file is an error (it was asked for).
    let missing = d.project.path().join("nope.json").display().to_string();
    let err = d.load_error(Some(&missing));
    assert!(
        err.to_string()
            .starts_with(&format!("cannot read settings file {missing}")),
        "{err}"
    );
    // Malformed inline JSON names the flag.
    let err = d.load_error(Some("{\"model\": }"));
    assert_eq!(
        err.to_string(),
        "invalid settings in --settings:1:11: expected value"
    );
}

#[test]
fn the_readme_example_error_is_what_orbit_prints() {
    let text = "{\n  \"model\": \"opus\",\n  \"env\": {}\n";
    let err = SettingsFile::parse(S::Project, ".claude/settings.json", None, text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid settings in .claude/settings.json:4:0: EOF while parsing an object"
    );
}
