//! Times the shell analysis of a 60-part compound command (issue 12's
//! benchmark: a permission decision ≤ 1 ms): parse + the one walk +
//! read-only + file access + one rule match (which parses again).
//!
//! `cargo run --release -p orbit-shell --example analysis_bench`

use std::time::Instant;

use orbit_shell::{CommandPattern, parse};

fn main() {
    let parts: Vec<String> = (0..60)
        .map(|i| match i % 4 {
            0 => format!("grep -n 'x{i}' src/f{i}.rs"),
            1 => format!("cat notes{i}.txt | head -n {i}"),
            2 => format!("git log --oneline -{i}"),
            _ => format!("ls -la dir{i}"),
        })
        .collect();
    let command = parts.join(" && ");
    let pattern = CommandPattern::parse("git log:*");
    let rounds: u32 = 2_000;
    let mut read_only = 0;
    // Warm the parser.
    let _ = parse(&command);
    let start = Instant::now();
    for _ in 0..rounds {
        let Ok(script) = parse(&command) else {
            eprintln!("the benchmark command does not parse");
            return;
        };
        read_only += u32::from(script.is_read_only());
        let _ = script.file_access();
        if let Some(p) = &pattern {
            let _ = p.matches(&command);
        }
    }
    let per = start.elapsed() / rounds;
    let start_parse = Instant::now();
    for _ in 0..rounds {
        let _ = parse(&command);
    }
    println!("parse alone: {:?}", start_parse.elapsed() / rounds);
    let mut raw = tree_sitter::Parser::new();
    if raw.set_language(&tree_sitter_bash::LANGUAGE.into()).is_ok() {
        let t = Instant::now();
        for _ in 0..rounds {
            let _ = raw.parse(&command, None);
        }
        println!("tree-sitter parse alone: {:?}", t.elapsed() / rounds);
    }
    let script = parse(&command).ok();
    let t = Instant::now();
    for _ in 0..rounds {
        let _ = script.as_ref().map(|s| s.is_read_only());
    }
    println!("is_read_only alone: {:?}", t.elapsed() / rounds);
    println!(
        "60-part command ({} bytes): {:?} per decision (parse, walk, read-only, paths, one rule); read-only: {}",
        command.len(),
        per,
        read_only == rounds
    );
}
