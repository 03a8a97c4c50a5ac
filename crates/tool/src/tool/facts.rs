//! What a tool declares: per call, its [`CallFacts`] (read-only? which
//! paths, host, command?), which policy reads instead of the tool's name;
//! per tool, its [`ToolInfo`] (name, aliases, search keywords, description,
//! result limit). Tools build both; the registry, the permission gate and
//! the partitioner read them.

use std::path::PathBuf;

use super::output::ResultLimit;

/// What one call will do, declared by its tool for its input. Policy
/// (partitioning, permissions, sibling abort, workspace boundaries) reads
/// these facts and never a tool's name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallFacts {
    /// No side effect: it only reads. Auto-approved in default mode,
    /// allowed in plan mode, discarded rather than kept by a retry.
    pub read_only: bool,
    /// May run at the same time as other concurrency-safe calls (X1).
    pub concurrency_safe: bool,
    /// Irreversible (deletes or overwrites without a way back).
    pub destructive: bool,
    /// Files or directories it reads, resolved against the session's cwd.
    pub reads: Vec<PathBuf>,
    /// Files it creates or changes, resolved against the session's cwd.
    pub writes: Vec<PathBuf>,
    /// The URL it fetches, if it reaches the network.
    pub network: Option<String>,
    /// The shell command it runs, if it runs one (command rules match it).
    pub command: Option<String>,
    /// The command only manages files (Claude Code's filesystem commands:
    /// `mkdir`, `touch`, `rm`, `rmdir`, `mv`, `cp`, `sed -i`, read
    /// strictly) and `reads`/`writes` are all it touches: `acceptEdits`
    /// allows it as it allows a file edit, where those paths allow one.
    pub file_management: bool,
    /// When this call fails, its running siblings that also have this fact
    /// are cancelled (X5: shell commands of one batch often depend on each
    /// other; independent tools do not).
    pub failure_cancels_siblings: bool,
    /// The call's subject for a person: the command, path, pattern or URL
    /// (`Bash(false)`, `Read(src/main.rs)`).
    pub subject: String,
    /// It runs a process outside the session's OS sandbox although one is
    /// active (the model asked to): only an allow rule or a person may
    /// approve it.
    pub unsandboxed: bool,
    /// Files the call may print although its words do not name them (the
    /// committed copies a git command can show): a Read deny or ask rule
    /// covering one makes the call ask, in every mode.
    pub may_read: Vec<PathBuf>,
    /// The command may run a program its words do not show (a repository's
    /// configured program, a project file found through a relative `PATH`
    /// entry): no part of it counts as read-only on the shell analysis
    /// alone, so allow rules must match every part.
    pub hidden_programs: bool,
    /// The call exists to put something to a person (a plan to approve, a
    /// question to answer): every mode asks, plan mode included; with no
    /// one to ask it is refused with that reason.
    pub asks_user: bool,
}

impl CallFacts {
    /// A call about `subject` that declares nothing else: not read-only,
    /// not concurrency-safe, no paths, no URL, no command. Add facts with
    /// [`CallFacts::only_reads`], [`CallFacts::reading`],
    /// [`CallFacts::writing`] and [`CallFacts::fetching`]; set the others
    /// with struct update syntax.
    ///
    /// ```
    /// # use std::path::PathBuf;
    /// # use orbit_tool::CallFacts;
    /// let facts = CallFacts::about("src/main.rs")
    ///     .only_reads()
    ///     .reading(PathBuf::from("/work/src/main.rs"));
    /// assert!(facts.read_only && facts.concurrency_safe && !facts.destructive);
    /// assert_eq!(facts.reads, [PathBuf::from("/work/src/main.rs")]);
    /// let shell = CallFacts {
    ///     command: Some("make".into()),
    ///     failure_cancels_siblings: true,
    ///     ..CallFacts::about("make")
    /// };
    /// assert!(!shell.read_only && shell.writes.is_empty());
    /// ```
    pub fn about(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            ..Self::default()
        }
    }

    /// The same call, read-only and concurrency-safe: it has no side effect
    /// and may run beside other such calls.
    pub fn only_reads(self) -> Self {
        Self {
            read_only: true,
            concurrency_safe: true,
            ..self
        }
    }

    /// The same call, reading `path` too.
    pub fn reading(mut self, path: PathBuf) -> Self {
        self.reads.push(path);
        self
    }

    /// The same call, creating or changing the file at `path` too.
    pub fn writing(mut self, path: PathBuf) -> Self {
        self.writes.push(path);
        self
    }

    /// The same call, reaching the network at `url`.
    pub fn fetching(self, url: impl Into<String>) -> Self {
        Self {
            network: Some(url.into()),
            ..self
        }
    }
}

/// What a tool says about itself, the same for every call: the name the
/// model calls it by, other names it answers to (T2), keywords for
/// deferred-tool search, the description the model is told, and how its
/// results are limited (R1/R2).
///
/// Build it with the `const` [`ToolInfo::new`] (name and description) and
/// set the rest with [`ToolInfo::with_search_hint`],
/// [`ToolInfo::with_aliases`] and [`ToolInfo::with_result_limit`]:
///
/// ```
/// # use orbit_tool::{ResultLimit, ToolInfo};
/// let info = ToolInfo::new("LineCount", "Counts the lines of a file.")
///     .with_search_hint("count lines")
///     .with_result_limit(ResultLimit::PersistOver(1_000));
/// assert_eq!(info.aliases, &[] as &[&str]);
/// ```
///
/// A built-in returns fixed text; a tool whose name or description comes
/// from elsewhere (an MCP server) borrows them from itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolInfo<'a> {
    /// The name the model calls it by.
    pub name: &'a str,
    /// Other names the model may call it by (T2); none by default.
    pub aliases: &'a [&'a str],
    /// Keywords for deferred-tool search; none by default.
    pub search_hint: Option<&'a str>,
    /// What the model is told about the tool. Keep it short: every byte is
    /// sent on every request.
    pub description: &'a str,
    /// R1/R2 for its results; [`ToolInfo::DEFAULT_RESULT_LIMIT`] unless set.
    pub result_limit: ResultLimit,
    /// Every call only reads (MCP's `readOnlyHint`); false by default, as
    /// for a tool whose calls may write.
    pub read_only: bool,
}

impl<'a> ToolInfo<'a> {
    /// The result limit of a tool that sets none: a result longer than
    /// 100,000 chars is persisted.
    pub const DEFAULT_RESULT_LIMIT: ResultLimit = ResultLimit::PersistOver(100_000);

    /// A tool called `name`, told to the model as `description`; no
    /// aliases, no search hint, [`ToolInfo::DEFAULT_RESULT_LIMIT`].
    pub const fn new(name: &'a str, description: &'a str) -> Self {
        Self {
            name,
            aliases: &[],
            search_hint: None,
            description,
            result_limit: Self::DEFAULT_RESULT_LIMIT,
            read_only: false,
        }
    }

    /// The same, every call of it only reading (what a call may do is still
    /// decided by its own [`CallFacts`]).
    pub const fn only_reads(self) -> Self {
        Self {
            read_only: true,
            ..self
        }
    }

    /// The same, its results limited by `result_limit` (R1/R2).
    pub const fn with_result_limit(self, result_limit: ResultLimit) -> Self {
        Self {
            result_limit,
            ..self
        }
    }

    /// The same, answering to these other names too.
    pub const fn with_aliases(self, aliases: &'a [&'a str]) -> Self {
        Self { aliases, ..self }
    }

    /// The same, found by deferred-tool search with these keywords.
    pub const fn with_search_hint(self, search_hint: &'a str) -> Self {
        Self {
            search_hint: Some(search_hint),
            ..self
        }
    }
}
