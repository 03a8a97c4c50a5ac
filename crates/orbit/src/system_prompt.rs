//! The default system prompt: lean on purpose (the first request with the
//! built-in tools must stay under 16 KB, and every byte is paid on every turn).
//!
//! Built once per run from cheap facts only: an identity and behaviour
//! paragraph, brief tool guidance (tool descriptions carry the details),
//! environment facts (cwd, platform, OS version, today's date, git or not) and
//! the memory files (`orbit_memory`: managed, user, parent folders, the
//! project's CLAUDE.md family and AGENTS.md, with their `@path` imports;
//! bounded). `--system-prompt` replaces
//! the default; `--append-system-prompt` is added after either. The small-model
//! profile's prompt ([`build_local`]) takes its text from `orbit-profile`
//! (`assets/small-prompt.md`) and adds the same environment facts, shorter.
//!
//! The instruction files come with the project, so `orbit_memory` reads
//! them through `orbit_untrusted` as [`InstructionAccess`] says: a regular
//! file only, at most `orbit_memory::MEMORY_FILE_MAX_BYTES` of each and
//! `orbit_memory::MEMORY_TOTAL_MAX_BYTES` of all, a link or import out of
//! the project only from a user file or in a trusted folder, never a target
//! the deny predicate refuses; a skipped file is one warning line. The
//! files loaded are recorded in [`InstructionAccess::loaded`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use orbit_config::Env;
use orbit_engine::{ResultAttachments, ResultFacts};
use orbit_memory::{Access, Caps, LoadedMemory, NestedMemory, SharedDeny, Sources};
use orbit_permissions::{PermissionConfig, Policy};
use orbit_profile::{SMALL, SMALL_PROMPT};
use orbit_tool::ToolUseContext;
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
    /// Where the memory files are; None = the working directory and its
    /// parents only (no user or managed file).
    pub sources: Option<&'a Sources>,
    /// Receives every memory file loaded.
    pub loaded: Option<&'a LoadedMemory>,
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
            sources: None,
            loaded: None,
        })
    }
}
use std::time::{SystemTime, UNIX_EPOCH};

/// The small-model profile's total of memory files, in bytes (four of its
/// per-file cut: every 1k prompt tokens costs a local model ≈ 10 s).
pub const LOCAL_MEMORY_TOTAL_BYTES: usize = 4 * SMALL.max_instruction_file_bytes;

/// Most of the kernel release string read.
const OS_RELEASE_MAX_BYTES: usize = 256;

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
    out.push_str(&memory(cwd, Caps::default(), access));
    out
}

/// A session's system prompt before its output style, and the style:
/// [`Self::prompt`] is what the model gets (`orbit_memory::output_style`
/// applies it to orbit's default prompt only); [`Self::share`] keeps both
/// in the session's tool context, where `/output-style` switches styles.
pub(crate) struct StyledPrompt {
    base: String,
    style: Option<orbit_memory::output_style::OutputStyle>,
    dirs: orbit_memory::output_style::StyleDirs,
}

impl StyledPrompt {
    /// `base` (as built) with the style called `name` (None: `default`)
    /// among the session's: the user's style files (`env`'s HOME,
    /// `CLAUDE_CONFIG_DIR`) and, `trusted`, the project's at `cwd`. An
    /// unknown name or an unreadable file is one line to `warn`.
    pub(crate) fn new(
        base: String,
        name: Option<String>,
        (cwd, env, trusted): (&Path, &Env, bool),
        warn: &mut dyn FnMut(&str),
    ) -> Self {
        let dirs = orbit_memory::output_style::StyleDirs {
            project_root: cwd.to_path_buf(),
            home: env.path(orbit_config::vars::HOME),
            claude_config_dir: env.path(orbit_config::vars::CLAUDE_CONFIG_DIR),
            trusted,
        };
        let style = orbit_memory::output_style::selected(name.as_deref(), &dirs, warn);
        Self { base, style, dirs }
    }

    /// The system prompt with the style applied.
    pub(crate) fn prompt(&self) -> String {
        orbit_memory::output_style::apply(&self.base, IDENTITY, self.style.as_ref())
    }

    /// Keeps the unstyled prompt and the style in `context`.
    pub(crate) fn share(self, context: &ToolUseContext) {
        let state =
            orbit_memory::output_style::StyleState::new(self.base, IDENTITY, self.style, self.dirs);
        context.extension(orbit_memory::output_style::OUTPUT_STYLE_KEY, move || state);
    }
}

/// What the model is told when the session starts in plan mode with the
/// plan workflow offered (`ExitPlanMode`: an approver is there to read the
/// plan); appended to whichever prompt the session has.
pub(crate) const PLAN_MODE_PROMPT: &str = orbit_tool::plan::PLAN_MODE_PROMPT;

/// Appends [`PLAN_MODE_PROMPT`] to `config`'s prompt when its session starts
/// in plan mode and someone can approve a plan.
pub(crate) fn add_plan_mode(config: &mut orbit_engine::EngineConfig) {
    if config.permissions.mode == orbit_permissions::PermissionMode::Plan
        && config.approver.is_some()
    {
        config.system_prompt.push_str("\n\n");
        config.system_prompt.push_str(PLAN_MODE_PROMPT);
    }
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
/// platform, and the memory files (at most
/// `SMALL.max_instruction_file_bytes` of each, [`LOCAL_MEMORY_TOTAL_BYTES`]
/// of all, cuts stated).
pub fn local_prompt(cwd: &Path, access: &mut InstructionAccess<'_>) -> String {
    let mut out = String::with_capacity(SMALL_PROMPT.len() + 1024);
    out.push_str(SMALL_PROMPT);
    out.push_str(&format!(
        "\n\nWorking directory: {}\nPlatform: {}\n",
        cwd.display(),
        std::env::consts::OS
    ));
    let caps = Caps {
        file_bytes: SMALL.max_instruction_file_bytes,
        total_bytes: LOCAL_MEMORY_TOTAL_BYTES,
    };
    out.push_str(&memory(cwd, caps, access));
    out
}

/// The memory files' sections for a session in `cwd` (each after a blank
/// line), read as `access` allows and recorded in `access.loaded`.
fn memory(cwd: &Path, caps: Caps, access: &mut InstructionAccess<'_>) -> String {
    let sources = match access.sources {
        Some(sources) => Sources {
            cwd: cwd.to_path_buf(),
            ..sources.clone()
        },
        None => Sources::project_only(cwd),
    };
    let memory = orbit_memory::load(
        &sources,
        caps,
        &mut Access {
            trusted: access.trusted,
            deny: access.deny,
            warn: &mut *access.warn,
        },
    );
    if let Some(loaded) = access.loaded {
        for file in &memory.files {
            loaded.push(file.path.clone(), file.label.clone());
        }
    }
    orbit_memory::render(&memory)
}

/// Where a session's memory files are: the home folder, Claude Code's
/// user folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`) and the managed
/// policy file (`$ORBIT_MANAGED_MEMORY_PATH`, else
/// [`orbit_memory::MANAGED_MEMORY_PATH`]).
pub(crate) fn memory_sources(env: &Env, cwd: &Path) -> Sources {
    let home = env.path(orbit_config::vars::HOME);
    let claude_dir = orbit_config::claude_code::claude_config_dir(env);
    let managed = env
        .path(orbit_config::vars::ORBIT_MANAGED_MEMORY_PATH)
        .unwrap_or_else(|| PathBuf::from(orbit_memory::MANAGED_MEMORY_PATH));
    Sources {
        cwd: cwd.to_path_buf(),
        home,
        claude_dir,
        managed: Some(managed),
    }
}

/// The targets no memory file may be read from: what the Read deny rules
/// cover, and everything under `deny_paths` (the sandbox's deny list).
pub(crate) fn memory_deny(
    permissions: &PermissionConfig,
    cwd: &Path,
    deny_paths: &[PathBuf],
) -> SharedDeny {
    let policy = Policy::new(permissions, cwd);
    let mut denied = deny_paths.to_vec();
    // Targets are canonical: compare with the canonical form too.
    let canonical: Vec<_> = denied
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    denied.extend(canonical);
    Arc::new(move |target: &Path| {
        policy.is_read_denied(target) || denied.iter().any(|d| target.starts_with(d))
    })
}

/// A session's memory after its prompt was built: the files loaded (kept
/// among the tool context's extensions for `/memory` and the SDK's
/// `init`) and the nested files' hook on Read results.
pub(crate) struct SessionMemory {
    /// The files loaded so far (nested ones join as they are sent).
    pub(crate) loaded: LoadedMemory,
    /// The engine's hook for subfolders' files; None when the prompt was
    /// replaced (no memory at all).
    pub(crate) attachments: Option<Arc<dyn ResultAttachments>>,
}

impl SessionMemory {
    /// The memory of a session whose prompt loaded `loaded`; with
    /// `nested`, subfolders' files are sent on Read as `access` allows.
    pub(crate) fn new(loaded: LoadedMemory, nested: Option<(Sources, bool, SharedDeny)>) -> Self {
        let attachments = nested.map(|(sources, trusted, deny)| {
            let warn = Arc::new(|line: &str| eprintln!("orbit: warning: {line}"));
            let nested = NestedMemory::new(sources, trusted, deny, warn, loaded.clone());
            Arc::new(NestedMemoryOnRead(nested)) as Arc<dyn ResultAttachments>
        });
        Self {
            loaded,
            attachments,
        }
    }

    /// Makes the loaded files readable from `context`
    /// ([`orbit_memory::LOADED_MEMORY_KEY`]).
    pub(crate) fn share(&self, context: &ToolUseContext) {
        let loaded = self.loaded.clone();
        context.extension(orbit_memory::LOADED_MEMORY_KEY, move || loaded);
    }

    /// Queues an InstructionsLoaded run (`load_reason: session_start`) per
    /// file loaded at start, for the engine's first prompt, when `hooks`
    /// has any for that event (`home`: whose `~/.claude` files are the
    /// user's).
    pub(crate) fn queue_loaded_hooks(
        &self,
        context: &ToolUseContext,
        hooks: Option<&orbit_hooks::Hooks>,
        home: Option<&Path>,
    ) {
        let event = orbit_hooks::HookEvent::InstructionsLoaded;
        if !hooks.is_some_and(|h| h.has(event)) {
            return;
        }
        let pending = context.extension(
            orbit_hooks::PENDING_HOOKS_KEY,
            orbit_hooks::PendingHooks::default,
        );
        let user = home.map(|h| h.join(".claude"));
        for (path, _) in self.loaded.files() {
            let memory_type = if path.starts_with(orbit_memory::MANAGED_MEMORY_PATH) {
                "Managed"
            } else if path.file_name().is_some_and(|n| n == "CLAUDE.local.md") {
                "Local"
            } else if user.as_ref().is_some_and(|u| path.starts_with(u)) {
                "User"
            } else {
                "Project"
            };
            let fields = serde_json::json!({"file_path": path, "memory_type": memory_type,
                "load_reason": "session_start"});
            pending.push(event, Some("session_start".into()), fields);
        }
    }
}

/// The name of the tool whose results get a subfolder's memory files.
const READ_TOOL: &str = "Read";

/// Claude Code's nested memory: a successful Read of a file in a subfolder
/// gets that folder's (and those above it, below the working directory)
/// memory files as `<system-reminder>` blocks, each file once.
#[derive(Debug)]
struct NestedMemoryOnRead(NestedMemory);

impl ResultAttachments for NestedMemoryOnRead {
    fn attach(&self, facts: &ResultFacts<'_>) -> Option<String> {
        if facts.tool_name != READ_TOOL || facts.is_error {
            return None;
        }
        let [file] = facts.reads else {
            return None;
        };
        self.0.for_read(file)
    }
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The local profile's whole prompt, byte for byte (fixed cwd, no
    /// instruction files; then with a CLAUDE.md longer than the local cut
    /// and an appended prompt): moving the prompt's text must not change
    /// one byte the model sees. (The memory hierarchy changed the second on
    /// purpose: CLAUDE.md is cut at the local cap with a stated line, the
    /// heading no longer counted against it; session 8 changed the
    /// profile's prompt on purpose: lines for common jobs.)
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
            ((5606, 2640467170142187895), (7863, 9249123885869125114))
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
