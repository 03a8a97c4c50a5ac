//! The data directory: `$ORBIT_HOME`, else `$HOME/.orbit`, else an error —
//! one rule, used by the settings locations and the config alike.

use std::path::{Path, PathBuf};

use orbit_config::{Config, Env, Settings, SettingsLocations, SettingsSource, data_dir};

use super::common::overrides;

#[test]
fn orbit_home_then_home_dot_orbit_then_an_error() {
    let dir = |pairs: &[(&str, &str)]| data_dir(&Env::from_pairs(pairs.iter().copied()));
    assert_eq!(
        dir(&[("ORBIT_HOME", "/data"), ("HOME", "/h")]).unwrap(),
        PathBuf::from("/data")
    );
    assert_eq!(dir(&[("HOME", "/h")]).unwrap(), PathBuf::from("/h/.orbit"));
    // Empty values count as unset.
    assert_eq!(
        dir(&[("ORBIT_HOME", ""), ("HOME", "/h")]).unwrap(),
        PathBuf::from("/h/.orbit")
    );
    let err = dir(&[("ORBIT_HOME", ""), ("HOME", "")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot find a data directory: set ORBIT_HOME or HOME"
    );
}

#[test]
fn everyone_uses_the_same_rule() {
    for pairs in [
        vec![("ORBIT_HOME", "/data"), ("HOME", "/h")],
        vec![("HOME", "/h")],
    ] {
        let env = Env::from_pairs(pairs);
        let expected = data_dir(&env).unwrap();
        let config = Config::resolve(&overrides(), &env, &Settings::default()).unwrap();
        assert_eq!(config.data_dir, expected);
        let locations = SettingsLocations::standard(&env, Path::new("/p")).unwrap();
        assert_eq!(
            locations.paths(SettingsSource::User)[0],
            expected.join("settings.json")
        );
    }
    // Settings cannot move the data dir: it is needed to find them.
    let env = Env::from_pairs([("HOME", "/h")]);
    let s = super::common::settings(&[(
        SettingsSource::User,
        r#"{"env": {"ORBIT_HOME": "/elsewhere"}}"#,
    )]);
    let (config, warnings) =
        super::common::with_warnings(|| Config::resolve(&overrides(), &env, &s).unwrap());
    assert_eq!(config.data_dir, PathBuf::from("/h/.orbit"));
    assert_eq!(config.env.get("ORBIT_HOME"), None);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("ignoring env.ORBIT_HOME in user.json"),
        "{warnings:?}"
    );
    // No data dir: resolving fails, and so does finding the settings.
    let none = Env::from_pairs(Vec::<(String, String)>::new());
    assert!(Config::resolve(&overrides(), &none, &Settings::default()).is_err());
    assert!(SettingsLocations::standard(&none, Path::new("/p")).is_err());
}
