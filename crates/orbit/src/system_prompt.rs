//! The default system prompt: lean on purpose (the first request with the
//! built-in tools must stay under 16 KB, and every byte is paid on every turn).
//!
//! Built once per run from cheap facts only: an identity and behaviour
//! paragraph, brief tool guidance (tool descriptions carry the details),
//! environment facts (cwd, platform, OS version, today's date, git or not) and
//! the project's CLAUDE.md / AGENTS.md (bounded). `--system-prompt` replaces
//! the default; `--append-system-prompt` is added after either. The small-model
//! profile's prompt ([`build_local`]) takes its text from `orbit-profile`
//! (`assets/small-prompt.md`) and adds the same environment facts, shorter.
//!
//! The instruction files come with the project, so they are read through
//! `orbit_untrusted` as [`InstructionAccess`] says: a regular file only, at
//! most [`MAX_INSTRUCTION_FILE_BYTES`] read, a link out of the project only
//! in a trusted folder, never a target the deny predicate refuses; a
//! skipped file is one warning line.

use std::path::Path;

use orbit_profile::{SMALL, SMALL_PROMPT};
use orbit_untrusted::{ReadOpts, read_untrusted};

/// How the project's instruction files may be read, and where a skipped
/// file's one warning line goes.
pub struct InstructionAccess<'a> {
    /// The folder is trusted: a link out of it is followed.
    pub trusted: bool,
    /// Final targets no instruction file may be read from (the Read deny
    /// rules, the sandbox's deny list).
    pub deny: &'a dyn Fn(&Path) -> bool,
    /// Receives `skipped CLAUDE.md: …` for a file that was not read.
    pub warn: &'a mut dyn FnMut(&str),
}

impl InstructionAccess<'_> {
    /// Untrusted, nothing denied beyond the type and containment checks,
    /// warnings dropped (tests, callers without a project policy).
    pub fn untrusted(f: impl FnOnce(&mut InstructionAccess<'_>) -> String) -> String {
        let mut ignore = |_: &str| {};
        f(&mut InstructionAccess {
            trusted: false,
            deny: &|_| false,
            warn: &mut ignore,
        })
    }
}
use std::time::{SystemTime, UNIX_EPOCH};

/// Largest part of one instruction file (CLAUDE.md, AGENTS.md) that is sent.
pub const MAX_INSTRUCTION_FILE_BYTES: usize = 40 * 1024;

/// Most of the kernel release string read.
const OS_RELEASE_MAX_BYTES: usize = 256;

/// Instruction files read from the project root, in this order.
pub const INSTRUCTION_FILES: [&str; 2] = ["CLAUDE.md", "AGENTS.md"];

const IDENTITY: &str = "You are orbit, a coding agent running in the user's terminal. \
You help with software engineering tasks: reading and changing code, running commands, \
answering questions about a project. Be concise and direct; lead with the answer. \
Do what was asked, nothing more. Verify your work when you can (run the build or tests). \
Never guess file contents: read them. Refer to code as path:line.";

const TOOL_GUIDANCE: &str = "# Using tools\n\
- Use the dedicated tools instead of shell equivalents: Read (not cat), Edit/Write \
(not sed or echo), Glob (not find), Grep (not grep or rg), LS (not ls).\n\
- Read a file before you Edit or overwrite it. Paths are absolute or relative to the \
working directory.\n\
- Independent read-only calls may be made together in one message; they run in parallel.\n\
- A denied tool call was refused by the user's permission settings: do not retry it, \
work around it or say what you need.";

/// Assembles the system prompt for a run.
pub fn build(
    cwd: &Path,
    replace: Option<&str>,
    append: Option<&str>,
    access: &mut InstructionAccess<'_>,
) -> String {
    let mut prompt = match replace {
        Some(custom) => custom.to_string(),
        None => default_prompt(cwd, access),
    };
    if let Some(extra) = append.filter(|s| !s.is_empty()) {
        if !prompt.is_empty() {
            prompt.push_str("\n\n");
        }
        prompt.push_str(extra);
    }
    prompt
}

/// The default prompt for a session started in `cwd`.
pub fn default_prompt(cwd: &Path, access: &mut InstructionAccess<'_>) -> String {
    let mut out = String::with_capacity(4096);
    out.push_str(IDENTITY);
    out.push_str("\n\n");
    out.push_str(TOOL_GUIDANCE);
    out.push_str("\n\n# Environment\n");
    out.push_str(&format!("Working directory: {}\n", cwd.display()));
    out.push_str(&format!(
        "Is a git repository: {}\n",
        if is_git_repo(cwd) { "yes" } else { "no" }
    ));
    out.push_str(&format!("Platform: {}\n", std::env::consts::OS));
    if let Some(version) = os_version() {
        out.push_str(&format!("OS version: {version}\n"));
    }
    out.push_str(&format!("Today's date: {}\n", today_utc()));
    for name in INSTRUCTION_FILES {
        if let Some(section) = instruction_file(cwd, name, access) {
            out.push('\n');
            out.push_str(&section);
        }
    }
    out
}

/// [`build`] for the local profile: the same replace/append rules around a
/// much shorter default ([`local_prompt`]).
pub fn build_local(
    cwd: &Path,
    replace: Option<&str>,
    append: Option<&str>,
    access: &mut InstructionAccess<'_>,
) -> String {
    let base = match replace {
        Some(custom) => custom.to_string(),
        None => local_prompt(cwd, access),
    };
    build(cwd, Some(&base), append, access)
}

/// The local profile's default prompt: the profile's text
/// ([`SMALL_PROMPT`]: identity, how-tos and worked examples, before the
/// working directory so it stays in llama.cpp's cached prefix), cwd,
/// platform, and the start of CLAUDE.md / AGENTS.md (at most
/// `SMALL.max_instruction_file_bytes` of each).
pub fn local_prompt(cwd: &Path, access: &mut InstructionAccess<'_>) -> String {
    let mut out = String::with_capacity(SMALL_PROMPT.len() + 1024);
    out.push_str(SMALL_PROMPT);
    out.push_str(&format!(
        "\n\nWorking directory: {}\nPlatform: {}\n",
        cwd.display(),
        std::env::consts::OS
    ));
    for name in INSTRUCTION_FILES {
        if let Some(section) = instruction_file(cwd, name, access) {
            let mut cut = section.len().min(SMALL.max_instruction_file_bytes);
            while !section.is_char_boundary(cut) {
                cut -= 1;
            }
            out.push('\n');
            out.push_str(&section[..cut]);
        }
    }
    out
}

/// Whether `dir` or one of its ancestors holds `.git` (a few stat calls, no walk).
fn is_git_repo(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
}

/// The kernel release; read from /proc on Linux (cheap), omitted elsewhere.
fn os_version() -> Option<String> {
    let raw = read_untrusted(
        Path::new("/proc/sys/kernel/osrelease"),
        &ReadOpts::user_file(OS_RELEASE_MAX_BYTES),
    )
    .ok()?
    .text();
    let v = raw.trim();
    (!v.is_empty()).then(|| format!("Linux {v}"))
}

/// Today's date (UTC) as YYYY-MM-DD, without a date crate.
pub(crate) fn today_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = orbit_session::civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `# NAME (project instructions)` + the file's text, cut at
/// [`MAX_INSTRUCTION_FILE_BYTES`] with a note; None when absent, empty or
/// refused (then one warning line through `access.warn`).
fn instruction_file(dir: &Path, name: &str, access: &mut InstructionAccess<'_>) -> Option<String> {
    let opts = ReadOpts::in_project(dir, MAX_INSTRUCTION_FILE_BYTES)
        .follow_links_out(access.trusted)
        .deny(access.deny);
    let file = match read_untrusted(&dir.join(name), &opts) {
        Ok(file) => file,
        Err(err) if err.is_not_found() => return None,
        Err(err) => {
            (access.warn)(&format!("skipped {name}: {err}"));
            return None;
        }
    };
    let text = file.text();
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut section =
        format!("# {name} (project instructions from the working directory; follow them)\n");
    section.push_str(text);
    if file.truncated {
        let total = file.size;
        let cut = file.bytes.len();
        section.push_str(&format!(
            "\n[{name} truncated: showing the first {cut} of {total} bytes]\n"
        ));
    } else {
        section.push('\n');
    }
    Some(section)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The local profile's whole prompt, byte for byte (fixed cwd, no
    /// instruction files; then with a CLAUDE.md longer than the local cut
    /// and an appended prompt): moving the prompt's text must not change
    /// one byte the model sees.
    #[test]
    fn the_local_prompt_is_unchanged() {
        let cwd = Path::new("/nonexistent-orbit-dir/project");
        let plain = InstructionAccess::untrusted(|access| build_local(cwd, None, None, access));
        insta::assert_snapshot!("local_prompt", plain);

        let dir = tempfile::tempdir().unwrap();
        let rule = "Use tabs. ".repeat(300);
        std::fs::write(dir.path().join("CLAUDE.md"), format!("# Rules\n{rule}\n")).unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "Run make test.\n").unwrap();
        let with_files = InstructionAccess::untrusted(|access| {
            build_local(dir.path(), None, Some("EXTRA"), access)
        })
        .replace(&dir.path().display().to_string(), "<CWD>");
        insta::assert_snapshot!("local_prompt_with_instruction_files", with_files);
        // insta forgives line-end whitespace; the bytes must match exactly.
        assert_eq!(
            (fingerprint(&plain), fingerprint(&with_files)),
            ((4865, 2092073773641460634), (6987, 872375429513311103))
        );
    }

    /// Length and FNV-1a hash of a text.
    fn fingerprint(text: &str) -> (usize, u64) {
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        (text.len(), hash)
    }

    #[test]
    fn civil_dates() {
        assert_eq!(orbit_session::civil_from_days(0), (1970, 1, 1));
        assert_eq!(orbit_session::civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(orbit_session::civil_from_days(20_788), (2026, 12, 1));
    }

    #[test]
    fn replace_and_append() {
        let cwd = Path::new("/nonexistent-orbit-dir");
        let build = |replace, append| {
            InstructionAccess::untrusted(|access| build(cwd, replace, append, access))
        };
        assert_eq!(build(Some("S"), None), "S");
        assert_eq!(build(Some("S"), Some("A")), "S\n\nA");
        assert_eq!(build(Some(""), Some("A")), "A");
        let d = build(None, Some("EXTRA"));
        assert!(d.starts_with(IDENTITY));
        assert!(d.ends_with("\n\nEXTRA"));
    }
}
