//! Benchmark driver for `bench/search.sh` (not a test).
//!
//! `search_bench generate DIR FILES` writes a deterministic tree (xorshift
//! text, ~11 KB per file, every 97th file holding an `orbit_needle_N` call).
//! `search_bench run DIR RUNS` times, RUNS times each and alternating, the
//! Grep tool (content and files_with_matches modes) against `rg` with the
//! same pattern, the Glob tool against `rg --files -g`, and the Read tool (if
//! registered) on a 10 MB file; it prints one line per measurement with the
//! median and the ratio rg_time / orbit_time (≥ 1 means orbit is faster).

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use orbit_protocol::ToolResultContent;
use orbit_tools::builtin::default_tools;
use orbit_tools::{CallContext, ToolOutput, ToolRegistry, ToolUseContext};
use serde_json::{Value, json};

type BoxError = Box<dyn std::error::Error>;

const NEEDLE_PATTERN: &str = "orbit_needle_[0-9]+";
const FILE_BYTES: usize = 11_000;
const READ_FILE_BYTES: usize = 10 * 1024 * 1024;
const WORDS: [&str; 32] = [
    "let", "mut", "value", "return", "struct", "impl", "self", "match", "config", "buffer",
    "index", "result", "error", "option", "string", "vector", "handle", "stream", "parse",
    "render", "token", "scope", "frame", "queue", "thread", "signal", "module", "import", "export",
    "filter", "window", "cursor",
];
const EXTS: [&str; 5] = ["rs", "py", "txt", "md", "js"];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn file_text(i: usize, rng: &mut Rng) -> String {
    let mut s = String::with_capacity(FILE_BYTES + 128);
    let needle_line = if i.is_multiple_of(97) {
        Some((rng.next() % 100) as usize)
    } else {
        None
    };
    let mut line = 0;
    while s.len() < FILE_BYTES {
        if needle_line == Some(line) {
            s.push_str(&format!("    let x = orbit_needle_{i}(config);\n"));
        } else {
            let words = 6 + (rng.next() % 8) as usize;
            for w in 0..words {
                if w > 0 {
                    s.push(' ');
                }
                s.push_str(WORDS[(rng.next() % WORDS.len() as u64) as usize]);
            }
            s.push('\n');
        }
        line += 1;
    }
    s
}

fn generate(dir: &Path, files: usize) -> Result<(), BoxError> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut bytes = 0usize;
    for i in 0..files {
        let sub = dir.join(format!("d{:03}/s{:02}", i / 1000, (i / 100) % 10));
        if i % 100 == 0 {
            std::fs::create_dir_all(&sub)?;
        }
        let text = file_text(i, &mut rng);
        bytes += text.len();
        std::fs::write(sub.join(format!("f{i:06}.{}", EXTS[i % EXTS.len()])), text)?;
    }
    // One 10 MB file for the Read measurement, outside the searched tree.
    let mut big = String::with_capacity(READ_FILE_BYTES + 128);
    let mut i = 0;
    while big.len() < READ_FILE_BYTES {
        big.push_str(&format!(
            "{i:08} {}\n",
            file_text(1, &mut rng).lines().next().unwrap_or("")
        ));
        i += 1;
    }
    std::fs::write(dir.with_extension("read10mb.txt"), big)?;
    println!(
        "generated {files} files, {:.2} GB in {}",
        bytes as f64 / 1e9,
        dir.display()
    );
    Ok(())
}

/// CPU time (user + system) of this process and of its waited-for
/// children, from /proc/self/stat (clock ticks of 10 ms). Wall time on a
/// shared, loaded machine is noisy; CPU time shows the work done.
fn cpu_times() -> Result<(Duration, Duration), BoxError> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let after = stat.rsplit_once(')').ok_or("bad /proc/self/stat")?.1;
    let f: Vec<u64> = after
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    // After the command name: state is not numeric, so fields shift by one:
    // utime, stime, cutime, cstime are stat fields 14..17 → f[10..14].
    let tick = |n: u64| Duration::from_millis(n * 10);
    Ok((tick(f[10] + f[11]), tick(f[12] + f[13])))
}

#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Duration,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs a command with stdout on a pipe (rg treats /dev/null specially and
/// would stop at the first match) and returns (elapsed, stdout line count).
fn time_command(args: &[&str]) -> Result<(Sample, usize), BoxError> {
    let cpu_before = cpu_times()?.1;
    let start = Instant::now();
    let mut child = Command::new(args[0])
        .args(&args[1..])
        .stdout(Stdio::piped())
        .spawn()?;
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_end(&mut out)?;
    }
    child.wait()?;
    let wall = start.elapsed();
    let cpu = cpu_times()?.1.saturating_sub(cpu_before);
    Ok((
        Sample { wall, cpu },
        out.iter().filter(|b| **b == b'\n').count(),
    ))
}

fn text_of(out: &ToolOutput) -> &str {
    match &out.content {
        ToolResultContent::Text(t) => t,
        ToolResultContent::Blocks(_) => "",
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One line: medians of wall and CPU time, and rg/orbit ratios (≥ 1 means
/// orbit is at least as fast).
fn report(name: &str, orbit: &[Sample], rg: Option<&[Sample]>, note: &str) {
    let wall = |v: &[Sample]| median(v.iter().map(|s| s.wall).collect());
    let cpu = |v: &[Sample]| median(v.iter().map(|s| s.cpu).collect());
    let (ow, oc) = (wall(orbit), cpu(orbit));
    match rg {
        Some(rg) => {
            let (rw, rc) = (wall(rg), cpu(rg));
            println!(
                "{name:<26} wall: orbit {:>7.1} ms, rg {:>7.1} ms, ratio {:.2}x | cpu: orbit {:>6.0} ms, rg {:>6.0} ms, ratio {:.2}x  {note}",
                ms(ow),
                ms(rw),
                rw.as_secs_f64() / ow.as_secs_f64(),
                ms(oc),
                ms(rc),
                rc.as_secs_f64() / oc.as_secs_f64().max(1e-3),
            );
        }
        None => println!(
            "{name:<26} wall: orbit {:>7.1} ms | cpu: orbit {:>6.0} ms  {note}",
            ms(ow),
            ms(oc)
        ),
    }
}

async fn call_tool(
    registry: &ToolRegistry,
    ctx: &ToolUseContext,
    name: &str,
    input: Value,
) -> Result<(Sample, ToolOutput), BoxError> {
    let tool = registry
        .find(name)
        .ok_or(format!("{name} is not registered"))?;
    let cpu_before = cpu_times()?.0;
    let start = Instant::now();
    let parsed = tool.parse(input, ctx)?;
    let out = parsed.call(ctx, &CallContext::detached("bench")).await?;
    let wall = start.elapsed();
    let cpu = cpu_times()?.0.saturating_sub(cpu_before);
    Ok((Sample { wall, cpu }, out))
}

async fn run(dir: &Path, runs: usize) -> Result<(), BoxError> {
    let dir_s = dir.to_str().ok_or("non-UTF-8 dir")?;
    let ctx = ToolUseContext::new(
        "bench",
        dir.to_path_buf(),
        PathBuf::from("/tmp/orbit-bench-data"),
    );
    let registry = default_tools();
    // Warm the page cache once so every run reads from memory.
    time_command(&["rg", "-c", "zzzz_never", dir_s])?;

    let (mut o, mut r) = (Vec::new(), Vec::new());
    let (mut o_lines, mut r_lines) = (0, 0);
    for _ in 0..runs {
        let (t, lines) = time_command(&[
            "rg",
            "--hidden",
            "-n",
            "--no-heading",
            "--color",
            "never",
            NEEDLE_PATTERN,
            dir_s,
        ])?;
        r.push(t);
        r_lines = lines;
        let (t, out) = call_tool(
            &registry,
            &ctx,
            "Grep",
            json!({"pattern": NEEDLE_PATTERN, "output_mode": "content"}),
        )
        .await?;
        o.push(t);
        o_lines = text_of(&out).lines().count();
    }
    report(
        "Grep content",
        &o,
        Some(&r),
        &format!("(lines: orbit {o_lines}, rg {r_lines})"),
    );

    let (mut o, mut r) = (Vec::new(), Vec::new());
    let (mut o_files, mut r_files) = (0, 0);
    for _ in 0..runs {
        let (t, lines) = time_command(&["rg", "--hidden", "-l", NEEDLE_PATTERN, dir_s])?;
        r.push(t);
        r_files = lines;
        let (t, out) =
            call_tool(&registry, &ctx, "Grep", json!({"pattern": NEEDLE_PATTERN})).await?;
        o.push(t);
        o_files = text_of(&out).lines().count().saturating_sub(1);
    }
    report(
        "Grep files_with_matches",
        &o,
        Some(&r),
        &format!("(files: orbit {o_files}, rg {r_files})"),
    );

    let (mut o, mut r, mut r_sorted) = (Vec::new(), Vec::new(), Vec::new());
    let mut r_files = 0;
    let mut first_line = String::new();
    for _ in 0..runs {
        let (t, lines) = time_command(&["rg", "--files", "-g", "*.rs", dir_s])?;
        r.push(t);
        r_files = lines;
        // The same work as Glob: stat every match and order by mtime.
        let (t, _) = time_command(&["rg", "--files", "--sortr=modified", "-g", "*.rs", dir_s])?;
        r_sorted.push(t);
        let (t, out) = call_tool(&registry, &ctx, "Glob", json!({"pattern": "**/*.rs"})).await?;
        o.push(t);
        first_line = text_of(&out).lines().next().unwrap_or("").to_string();
    }
    report(
        "Glob **/*.rs",
        &o,
        Some(&r),
        &format!("(vs rg --files -g '*.rs': {r_files} files; newest {first_line})"),
    );
    report(
        "Glob **/*.rs (sorted rg)",
        &o,
        Some(&r_sorted),
        "(vs rg --files --sortr=modified)",
    );

    let read_path = dir.with_extension("read10mb.txt");
    let read_path = read_path.to_str().ok_or("non-UTF-8 path")?;
    for (label, input) in [
        ("Read 10 MB (whole)", json!({"file_path": read_path})),
        (
            "Read 10 MB (offset, limit)",
            json!({"file_path": read_path, "offset": 140_000, "limit": 1_000}),
        ),
    ] {
        let mut times = Vec::new();
        let mut note = String::new();
        for _ in 0..runs {
            match call_tool(&registry, &ctx, "Read", input.clone()).await {
                Ok((t, out)) => {
                    times.push(t);
                    let text = text_of(&out);
                    note = if out.is_error {
                        format!("(error: {})", text.chars().take(90).collect::<String>())
                    } else {
                        format!(
                            "({} chars, first line {:?})",
                            text.len(),
                            text.lines().next().unwrap_or("")
                        )
                    };
                }
                Err(e) => {
                    // A refusal (parse or validate) is still a timed answer.
                    note = format!("(not measured: {e})");
                    break;
                }
            }
        }
        if times.is_empty() {
            println!("{label:<28} {note}");
        } else {
            report(label, &times, None, &note);
        }
    }
    Ok(())
}

fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| {
        args.get(i)
            .map(String::as_str)
            .ok_or("usage: search_bench generate DIR FILES | run DIR RUNS")
    };
    match arg(1)? {
        "generate" => generate(Path::new(arg(2)?), arg(3)?.parse()?),
        "run" => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(run(Path::new(arg(2)?), arg(3)?.parse()?)),
        other => Err(format!("unknown command {other}").into()),
    }
}
