//! The fuzzy ranking: subsequence matches, basename and run bonuses.

use orbit_composer::fuzzy::{rank, score};

#[test]
fn ranking_favours_basename_and_contiguous_hits() {
    // (query, candidates, expected order; non-matches dropped)
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "main",
            &[
                "crates/model/src/lib.rs",
                "src/main.rs",
                "crates/cli/src/main.rs",
                "docs/MAINTAINERS.md",
            ],
            &[
                "src/main.rs",
                "docs/MAINTAINERS.md",
                "crates/cli/src/main.rs",
            ],
        ),
        (
            "cfg",
            &[
                "crates/config/src/lib.rs",
                "src/cfg.rs",
                "build/config.gradle",
            ],
            &[
                "src/cfg.rs",
                "build/config.gradle",
                "crates/config/src/lib.rs",
            ],
        ),
        (
            "readme",
            &[
                "docs/readme-old/notes.txt",
                "README.md",
                "crates/x/README.md",
            ],
            &[
                "README.md",
                "crates/x/README.md",
                "docs/readme-old/notes.txt",
            ],
        ),
        (
            "srcmain",
            &["src/main.rs", "src/domain.rs", "scripts/make.sh"],
            &["src/main.rs", "src/domain.rs"],
        ),
        ("zzz", &["src/main.rs", "Cargo.toml"], &[]),
        // Empty query: everything, shortest first.
        (
            "",
            &["a/b/c.rs", "x.rs", "ab.rs"],
            &["x.rs", "ab.rs", "a/b/c.rs"],
        ),
        // Case does not matter.
        (
            "CARGO",
            &["Cargo.toml", "crates/cargo.lock"],
            &["Cargo.toml", "crates/cargo.lock"],
        ),
    ];
    for (query, candidates, expected) in cases {
        assert_eq!(rank(query, candidates), *expected, "query {query:?}");
    }
}

#[test]
fn score_is_none_only_without_a_subsequence() {
    let cases: &[(&str, &str, bool)] = &[
        ("abc", "a_b_c", true),
        ("abc", "cba", false),
        ("", "anything", true),
        ("ab", "a", false),
        ("é", "café.txt", true),
    ];
    for (query, candidate, matches) in cases {
        assert_eq!(
            score(query, candidate).is_some(),
            *matches,
            "{query:?} in {candidate:?}"
        );
    }
    // A run beats the same letters scattered.
    assert!(score("lib", "src/lib.rs") > score("lib", "src/l_i_b.rs"));
}
