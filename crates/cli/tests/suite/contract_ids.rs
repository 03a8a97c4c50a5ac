//! docs/CONTRACT.md and the code agree on the behaviour ids (L1, T3, X5,
//! R2, P1, …): every id the contract defines (a `**X5 — …**` heading) is
//! cited in a comment or a test name somewhere under `crates/`, and every id
//! cited there is defined. Also: every `.rs` path the contract names exists
//! (its paths are relative to `crates/`), and every test it names in
//! parentheses after a path is a `fn` of that name in one of those files.
//!
//! Data flow: read the contract → collect its defined ids and the `.rs` paths
//! it names → walk every `.rs` file under `crates/` (no `target`, no
//! snapshots), taking the text of its comments and the names of its fns →
//! collect the ids cited there (ranges such as `X3–X5` count for each id in
//! them) → compare the sets.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The letters of the contract's id families: Loop, Tools, orchestration
/// (X), Results, Permissions. (The headless interface has no numbered ids.)
const FAMILIES: &[char] = &['L', 'T', 'X', 'R', 'P'];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

fn contract() -> String {
    fs::read_to_string(repo_root().join("docs/CONTRACT.md")).expect("docs/CONTRACT.md")
}

/// Ids the contract defines: lines such as `**L1 — A tool_use is …**`.
fn defined_ids(contract: &str) -> BTreeSet<String> {
    contract
        .lines()
        .filter_map(|line| line.strip_prefix("**"))
        .filter_map(|rest| rest.split_once(" — ").map(|(id, _)| id))
        .filter(|id| is_id(id))
        .map(str::to_owned)
        .collect()
}

/// `L1`, `R4`: a family letter and digits, nothing else.
fn is_id(token: &str) -> bool {
    let mut chars = token.chars();
    matches!(chars.next(), Some(c) if FAMILIES.contains(&c))
        && token.len() > 1
        && chars.all(|c| c.is_ascii_digit())
}

/// The ids cited in `text`: whole tokens `X5`, and ranges `X3–X5` / `X3-X5`
/// (en dash or hyphen, second letter optional) expanded to every id in them.
fn ids_in(text: &str, out: &mut BTreeSet<String>) {
    let chars: Vec<char> = text.chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let starts = FAMILIES.contains(&chars[i]) && (i == 0 || !word(chars[i - 1]));
        if !starts {
            i += 1;
            continue;
        }
        let letter = chars[i];
        let mut j = i + 1;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        if j == i + 1 || (j < chars.len() && word(chars[j])) {
            i += 1;
            continue;
        }
        let first: u32 = chars[i + 1..j].iter().collect::<String>().parse().unwrap();
        let mut last = first;
        // A range: `–` or `-`, the same letter (optional), digits.
        if j < chars.len() && (chars[j] == '–' || chars[j] == '-') {
            let mut k = j + 1;
            if k < chars.len() && chars[k] == letter {
                k += 1;
            }
            let digits_from = k;
            while k < chars.len() && chars[k].is_ascii_digit() {
                k += 1;
            }
            if k > digits_from && (k == chars.len() || !word(chars[k])) {
                let end: u32 = chars[digits_from..k]
                    .iter()
                    .collect::<String>()
                    .parse()
                    .unwrap();
                if end > first && end - first < 20 {
                    last = end;
                    j = k;
                }
            }
        }
        for n in first..=last {
            out.insert(format!("{letter}{n}"));
        }
        i = j;
    }
}

/// The comment text of one source line: everything after a `//` that starts
/// the line or follows whitespace (so `http://` in a string is not one).
fn comment_of(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if let Some(rest) = trimmed.strip_prefix("//") {
        return Some(rest);
    }
    line.find(" //").map(|at| &line[at + 3..])
}

/// `x1` in `fn a_whole_message_runs_in_x1_batches_in_order`: ids in test
/// names are written in lower case between underscores.
fn fn_name_of(line: &str) -> Option<&str> {
    let at = line.find("fn ")?;
    if at > 0 && !line[..at].ends_with(' ') {
        return None;
    }
    let rest = &line[at + 3..];
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read a crates directory") {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !(name == "target" || name == "snapshots" || name.starts_with('.')) {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Every id cited in the comments and fn names of `crates/**/*.rs`, with
/// the first file citing it (for the failure message).
fn cited_ids() -> Vec<(String, PathBuf)> {
    let root = repo_root();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    files.sort();
    assert!(files.len() > 100, "found only {} .rs files", files.len());
    let mut cited: Vec<(String, PathBuf)> = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("read a source file");
        let mut ids = BTreeSet::new();
        for line in text.lines() {
            if let Some(comment) = comment_of(line) {
                ids_in(comment, &mut ids);
            }
            if let Some(name) = fn_name_of(line) {
                for part in name.split('_') {
                    let upper = part.to_uppercase();
                    if is_id(&upper) {
                        ids.insert(upper);
                    }
                }
            }
        }
        let relative = file.strip_prefix(&root).unwrap_or(&file).to_path_buf();
        for id in ids {
            if !cited.iter().any(|(c, _)| *c == id) {
                cited.push((id, relative.clone()));
            }
        }
    }
    cited
}

#[test]
fn the_id_scanner_reads_citations_as_the_code_writes_them() {
    let mut ids = BTreeSet::new();
    ids_in(
        " The StreamingToolExecutor (DESIGN X3–X5, L5 for tools)",
        &mut ids,
    );
    ids_in(
        "R2: per-message budget; L4's continuation; (T3); P2-",
        &mut ids,
    );
    // Not citations: other letters, a family letter inside a word or
    // followed by one, a dash with no number after it.
    ids_in("C0 controls, PR2, P1x, x_P3, a1, L", &mut ids);
    let want: BTreeSet<String> = ["X3", "X4", "X5", "L5", "R2", "L4", "T3", "P2"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(ids, want);
    assert_eq!(comment_of("    //! X1"), Some("! X1"));
    assert_eq!(comment_of(r#"let u = "http://P1";"#), None);
    assert_eq!(
        fn_name_of("async fn a_whole_message_runs_in_x1_batches_in_order() {"),
        Some("a_whole_message_runs_in_x1_batches_in_order")
    );
}

#[test]
fn every_defined_id_is_cited_and_every_cited_id_is_defined() {
    let defined = defined_ids(&contract());
    assert!(
        defined.len() >= 20,
        "docs/CONTRACT.md defines only {defined:?}: did its `**ID — title**` headings change?"
    );
    let cited = cited_ids();
    let cited_set: BTreeSet<String> = cited.iter().map(|(id, _)| id.clone()).collect();

    let uncited: Vec<&String> = defined.difference(&cited_set).collect();
    let undefined: Vec<String> = cited
        .iter()
        .filter(|(id, _)| !defined.contains(id))
        .map(|(id, file)| format!("{id} (first in {})", file.display()))
        .collect();
    assert!(
        uncited.is_empty() && undefined.is_empty(),
        "docs/CONTRACT.md and crates/ disagree.\n\
         defined but cited nowhere in crates/ (cite it where the code decides or in its test, \
         or remove it if nothing implements it): {uncited:?}\n\
         cited in crates/ but not defined in docs/CONTRACT.md: {undefined:?}"
    );
}

/// `engine/tests/suite/{a,b}.rs` → both paths.
fn expand_braces(path: &str) -> Vec<String> {
    match (path.find('{'), path.find('}')) {
        (Some(open), Some(close)) if open < close => path[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{}{}", &path[..open], alt, &path[close + 1..]))
            .collect(),
        _ => vec![path.to_owned()],
    }
}

/// What the backticked span before the current one was.
enum Prev {
    /// A `.rs` path (braces expanded), relative to `crates/`.
    Path(Vec<PathBuf>),
    /// A test name inside the `(name, name)` group after a path.
    Test(Vec<PathBuf>),
    Other,
}

#[test]
fn every_path_and_test_the_contract_names_exists() {
    let contract = contract();
    let crates = repo_root().join("crates");
    let mut missing = Vec::new();
    let mut checked_paths = 0;
    let mut checked_tests = 0;
    // Backticked spans are the odd pieces; a `(name, name)` group right
    // after a path names tests in that file.
    let pieces: Vec<&str> = contract.split('`').collect();
    let mut prev = Prev::Other;
    for index in (1..pieces.len()).step_by(2) {
        let span = pieces[index];
        let between = pieces[index - 1].trim();
        if span.ends_with(".rs") && span.contains('/') && !span.contains(' ') {
            let files: Vec<PathBuf> = expand_braces(span).iter().map(|p| crates.join(p)).collect();
            for file in &files {
                checked_paths += 1;
                if !file.is_file() {
                    missing.push(format!(
                        "path crates/{}",
                        file.strip_prefix(&crates).unwrap().display()
                    ));
                }
            }
            prev = Prev::Path(files);
            continue;
        }
        let files = match (&prev, between) {
            (Prev::Path(files), "(") | (Prev::Test(files), ",") => files.clone(),
            _ => {
                prev = Prev::Other;
                continue;
            }
        };
        checked_tests += 1;
        let needle = format!("fn {span}(");
        let found = files
            .iter()
            .filter_map(|f| fs::read_to_string(f).ok())
            .any(|text| text.contains(&needle));
        if !found {
            missing.push(format!("test {span} in {files:?}"));
        }
        prev = Prev::Test(files);
    }
    assert!(
        checked_paths >= 40,
        "only {checked_paths} paths found in the contract"
    );
    assert!(
        checked_tests >= 10,
        "only {checked_tests} test names found in the contract"
    );
    assert!(
        missing.is_empty(),
        "docs/CONTRACT.md names what does not exist: {missing:#?}"
    );
}
