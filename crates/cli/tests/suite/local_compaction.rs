//! Issue 11 acceptance, the local model's side: with its 8,192-token
//! window it completes a task that needs more tool output than the window
//! holds. The model's part is made as small as it can be: one prompt, three
//! `cat`s of ≈ 3,000-token files (a chain: each file's last line names the
//! next, so none can be skipped), and a word on the last line of the last
//! file to report. The history passes the compaction threshold (≈ 5,500
//! tokens) after the second file, so the request for the third is
//! compacted first; the transcript must hold the boundary.
//!
//! Ignored: one run on the shared 2-core machine takes minutes and its
//! reliability is not measured yet (see the report in docs/PERFORMANCE.md,
//! "Local model").

use std::time::Duration;

use super::common::{Scratch, run};
use super::local_model::{
    assert_answer_contains, bash_commands, describe, lines, local_turn, orbit_local_cmd,
};

/// Filler lines per file (≈ 3,000 tokens each).
const FILE_LINES: usize = 200;
/// The word the last file ends with.
const ANSWER: &str = "TANGERINE";
/// Bound of the whole run.
const RUN_TIMEOUT: Duration = Duration::from_secs(900);

#[test]
#[ignore = "minutes per run on 2 shared cores; pass rate not yet measured ≥ 9/10"]
fn local_model_reads_three_files_past_its_window_and_reports_the_last_word() {
    let _turn = local_turn();
    let scratch = Scratch::new();
    // A chain: each file's last line names the next, so none can be skipped.
    let chain = [
        ("start.txt", "No password in this file. Next, run: cat middle.txt".to_string()),
        ("middle.txt", "No password in this file. Next, run: cat final.txt".to_string()),
        ("final.txt", format!("The password is {ANSWER}.")),
    ];
    for (part, (name, last)) in chain.iter().enumerate() {
        let mut text: String = (1..=FILE_LINES)
            .map(|i| {
                format!("part {part} line {i}: inventory record {i} checked, nothing to report\n")
            })
            .collect();
        text.push_str(last);
        text.push('\n');
        scratch.write(name, &text);
    }
    let mut cmd = orbit_local_cmd(&scratch);
    cmd.timeout(RUN_TIMEOUT)
        .args(["--max-turns", "12", "--allowedTools", "Bash"])
        .args(["--session-id", "7a1f3c2e-4b5d-4e6f-8a9b-0c1d2e3f4a5b"])
        .args(["--output-format", "stream-json", "--verbose", "-p"])
        .arg(
            "Run `cat start.txt` with the Bash tool. The last line of each file tells the \
             next command to run; follow them until a file tells a password, then answer \
             with the password.",
        );
    let out = run(cmd);
    let lines = lines(&out);
    let cats = bash_commands(&lines);
    eprintln!("commands: {cats:?}");
    let transcript = std::fs::read_dir(scratch.home().join(".orbit/projects"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .find(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
        .map(|f| std::fs::read_to_string(f.path()).unwrap())
        .unwrap_or_default();
    assert!(
        transcript.contains(r#""type":"compaction""#),
        "no compaction boundary in the transcript\n{}",
        describe(&out)
    );
    assert!(
        cats.iter().any(|c| c.contains("final.txt")),
        "final.txt never read: {cats:?}\n{}",
        describe(&out)
    );
    assert_answer_contains(&lines, ANSWER, &out);
}
