//! State a tool may use: the session-wide [`ToolUseContext`] (working
//! directory, file-state cache, todos, background shells) and the per-call
//! [`CallContext`] (tool_use id, cancellation, progress channel).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use orbit_protocol::TodoItem;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::file_state::FileStateCache;

/// A per-session value a tool keeps (see [`ToolUseContext::extension`]).
pub type Extension = Arc<dyn std::any::Any + Send + Sync>;

/// Says which paths a read must leave out (the permission policy's read
/// deny rules); see [`ToolUseContext::set_read_filter`].
#[derive(Clone)]
pub struct ReadFilter(Arc<dyn Fn(&Path) -> bool + Send + Sync>);

impl ReadFilter {
    /// Whether a walk must leave `path` out.
    pub fn is_hidden(&self, path: &Path) -> bool {
        (self.0)(path)
    }
}

impl std::fmt::Debug for ReadFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadFilter(..)")
    }
}

/// A program every shell command a tool starts is launched through: the
/// command becomes `program ARGS… bash -c SCRIPT` (orbit's own OS sandbox
/// helper, `orbit sandbox <policy> --`), or, with [`Self::confine`], stays
/// `bash -c SCRIPT` and is confined between fork and exec (what the CLI
/// sets). Set it with [`ToolUseContext::set_launcher`]; without one
/// commands run directly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLauncher {
    /// The launcher executable (an absolute path).
    pub program: PathBuf,
    /// Its arguments before the command (ending with `--` for orbit's).
    pub args: Vec<std::ffi::OsString>,
    /// When set, commands are not started through `program`: this
    /// confines the `bash -c SCRIPT` command itself.
    pub confine: Option<Confinement>,
}

/// Applies an OS sandbox to a command between fork and exec (the CLI's
/// wrapper of `orbit_sandbox::Sandbox`).
pub trait ConfineCommand: Send + Sync + std::fmt::Debug {
    /// Prepares the sandbox for a command started in `cwd` and installs it
    /// on `cmd` (its environment and a `pre_exec` hook). Called last, once
    /// `cmd`'s own environment is set.
    fn confine(&self, cmd: &mut std::process::Command, cwd: &Path) -> std::io::Result<()>;
}

/// A shared [`ConfineCommand`] (equal when it is the same one).
#[derive(Clone, Debug)]
pub struct Confinement(pub Arc<dyn ConfineCommand>);

impl PartialEq for Confinement {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Confinement {}

/// What the session's model can be shown besides text, so a tool (Read)
/// picks the form of its result: an image block or a placeholder, a PDF
/// `document` block or its text per page. Set by the session assembly
/// from the model catalog and the provider ([`ToolUseContext::set_model_media`]);
/// without it a tool assumes the Anthropic Messages API (both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelMedia {
    /// The model takes image blocks.
    pub images: bool,
    /// The provider takes `document` blocks (PDFs).
    pub documents: bool,
}

impl Default for ModelMedia {
    fn default() -> Self {
        Self {
            images: true,
            documents: true,
        }
    }
}

/// Extension key of the session's [`ModelMedia`].
const MODEL_MEDIA_KEY: &str = "orbit.model_media";

/// How Read shows a text file's lines to the session's model. Set by the
/// session assembly from the model profile ([`ToolUseContext::set_read_view`]);
/// the default is Claude Code's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadView {
    /// A file that ends with a newline shows a last, empty numbered line
    /// after it (`a\nb\n` is `1\ta`, `2\tb`, `3\t`), as Claude Code's Read
    /// does, so the model can tell the file ends with a newline. Off, the
    /// lines are those `wc -l` counts: a small model took that empty line
    /// for a line to fill, and wrote a made-up one into the file.
    pub final_empty_line: bool,
}

impl Default for ReadView {
    fn default() -> Self {
        Self {
            final_empty_line: true,
        }
    }
}

/// Extension key of the session's [`ReadView`].
const READ_VIEW_KEY: &str = "orbit.read_view";

/// Session-wide state shared by all tool calls. Cheap to clone.
#[derive(Clone, Debug)]
pub struct ToolUseContext {
    /// The session's id (names the session's files, e.g. persisted results).
    pub session_id: String,
    /// The directory orbit was started in (canonical). Bash's `cd` is kept
    /// inside it unless allowed otherwise ([`Self::allow_directory`]).
    pub project_root: PathBuf,
    cwd: Arc<Mutex<PathBuf>>,
    /// Read-before-write state of the session (T5).
    pub file_state: Arc<FileStateCache>,
    /// The TodoWrite list of the session.
    pub todos: Arc<Mutex<Vec<TodoItem>>>,
    /// `$ORBIT_HOME` (default `~/.orbit`).
    pub data_dir: PathBuf,
    /// Extra data tools keep per session (e.g. background shells), by key.
    pub extensions: Arc<Mutex<Vec<(String, Extension)>>>,
    /// Directories outside `project_root` that Bash's `cd` may stay in
    /// (Claude Code's additional working directories), canonical.
    allowed_dirs: Arc<Mutex<Vec<PathBuf>>>,
    /// Environment variables removed from the processes tools start.
    hidden_env: Arc<Mutex<Vec<String>>>,
    set_env: Arc<Mutex<Vec<(String, std::ffi::OsString)>>>,
    read_filter: Option<ReadFilter>,
    launcher: Arc<Mutex<Option<CommandLauncher>>>,
}

impl ToolUseContext {
    /// A context for a session started in `project_root` (canonical).
    pub fn new(session_id: impl Into<String>, project_root: PathBuf, data_dir: PathBuf) -> Self {
        Self {
            session_id: session_id.into(),
            cwd: Arc::new(Mutex::new(project_root.clone())),
            project_root,
            file_state: Arc::new(FileStateCache::default()),
            todos: Arc::new(Mutex::new(Vec::new())),
            data_dir,
            extensions: Arc::new(Mutex::new(Vec::new())),
            allowed_dirs: Arc::new(Mutex::new(Vec::new())),
            hidden_env: Arc::new(Mutex::new(Vec::new())),
            set_env: Arc::new(Mutex::new(Vec::new())),
            read_filter: None,
            launcher: Arc::new(Mutex::new(None)),
        }
    }

    /// Removes these variables from the environment of every process a
    /// tool starts (Bash, background shells): the secrets orbit holds
    /// (`orbit_config::tool_env_hidden` lists them). Shared by every clone
    /// of this context; adds to earlier calls.
    pub fn hide_env_vars(&self, names: impl IntoIterator<Item = String>) {
        let mut g = lock(&self.hidden_env);
        for name in names {
            if !g.contains(&name) {
                g.push(name);
            }
        }
    }

    /// Launches every shell command through `launcher` (None: directly).
    /// Shared by every clone of this context.
    pub fn set_launcher(&self, launcher: Option<CommandLauncher>) {
        *lock(&self.launcher) = launcher;
    }

    /// The launcher set with [`Self::set_launcher`].
    pub fn launcher(&self) -> Option<CommandLauncher> {
        lock(&self.launcher).clone()
    }

    /// Adds these variables to the environment of every process a tool
    /// starts (the settings files' `env`, as Claude Code gives it to Bash);
    /// [`Self::hide_env_vars`] still wins over them. Shared by every clone
    /// of this context; replaces earlier calls.
    pub fn set_env_vars(&self, vars: Vec<(String, std::ffi::OsString)>) {
        *lock(&self.set_env) = vars;
    }

    /// The variables given to [`Self::set_env_vars`].
    pub fn env_vars(&self) -> Vec<(String, std::ffi::OsString)> {
        lock(&self.set_env).clone()
    }

    /// The variables given to [`Self::hide_env_vars`].
    pub fn hidden_env_vars(&self) -> Vec<String> {
        lock(&self.hidden_env).clone()
    }

    /// Sets what tools that walk directories (Grep, Glob, LS) leave out:
    /// `hidden(path)` is true for a path a read deny rule covers. The
    /// policy decides; the tools only skip.
    pub fn set_read_filter(&mut self, hidden: impl Fn(&Path) -> bool + Send + Sync + 'static) {
        self.read_filter = Some(ReadFilter(Arc::new(hidden)));
    }

    /// The filter set with [`Self::set_read_filter`], for a walk on
    /// another thread.
    pub fn read_filter(&self) -> Option<ReadFilter> {
        self.read_filter.clone()
    }

    /// Lets Bash's working directory stay in `dir` (and below) although it
    /// is outside the project. Shared by every clone of this context.
    pub fn allow_directory(&self, dir: PathBuf) {
        let dir = dir.canonicalize().unwrap_or(dir);
        let mut g = lock(&self.allowed_dirs);
        if !g.contains(&dir) {
            g.push(dir);
        }
    }

    /// The directories added with [`Self::allow_directory`].
    pub fn allowed_directories(&self) -> Vec<PathBuf> {
        lock(&self.allowed_dirs).clone()
    }

    /// The current working directory (changes when Bash `cd`s).
    pub fn cwd(&self) -> PathBuf {
        match self.cwd.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// Moves the session's working directory (a shell's `cd` the orchestrator accepted).
    pub fn set_cwd(&self, dir: PathBuf) {
        match self.cwd.lock() {
            Ok(mut g) => *g = dir,
            Err(p) => *p.into_inner() = dir,
        }
    }

    /// Resolves a tool's path argument against the current cwd.
    pub fn resolve_path(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.cwd().join(p)
        }
    }

    /// Sets what the session's model can be shown (see [`ModelMedia`]);
    /// shared by every clone of this context.
    pub fn set_model_media(&self, media: ModelMedia) {
        *lock(&self.extension(MODEL_MEDIA_KEY, || Mutex::new(media))) = media;
    }

    /// What the session's model can be shown (the Anthropic default when
    /// never set).
    pub fn model_media(&self) -> ModelMedia {
        *lock(&self.extension(MODEL_MEDIA_KEY, || Mutex::new(ModelMedia::default())))
    }

    /// Sets how Read shows lines (see [`ReadView`]); shared by every clone
    /// of this context.
    pub fn set_read_view(&self, view: ReadView) {
        *lock(&self.extension(READ_VIEW_KEY, || Mutex::new(view))) = view;
    }

    /// How Read shows lines (Claude Code's way when never set).
    pub fn read_view(&self) -> ReadView {
        *lock(&self.extension(READ_VIEW_KEY, || Mutex::new(ReadView::default())))
    }

    /// Returns the session's instance of `T` under `key`, creating it.
    pub fn extension<T: Send + Sync + 'static>(
        &self,
        key: &str,
        make: impl FnOnce() -> T,
    ) -> Arc<T> {
        let mut guard = match self.extensions.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        for (k, v) in guard.iter() {
            if k == key
                && let Ok(t) = Arc::clone(v).downcast::<T>()
            {
                return t;
            }
        }
        let t = Arc::new(make());
        guard.push((key.to_string(), t.clone() as Extension));
        t
    }
}

/// Locks `m`, recovering the value from a poisoned lock (a panicked
/// holder cannot leave these lists half-changed).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Something a running tool reports before it finishes.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolProgress {
    /// A chunk of output (e.g. Bash lines), for live display.
    Output(String),
    /// The todo list was replaced (TodoWrite).
    Todos(Vec<TodoItem>),
    /// Anything else, as JSON.
    Other(Value),
}

/// Per-call context.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// The id of the tool_use being answered.
    pub tool_use_id: String,
    /// Fires on user interrupt or sibling abort; the tool must stop (kill its
    /// processes) and return promptly.
    pub cancel: CancellationToken,
    progress: Option<UnboundedSender<(String, ToolProgress)>>,
}

impl CallContext {
    /// A call's context; `progress` receives what the call reports while it runs.
    pub fn new(
        tool_use_id: impl Into<String>,
        cancel: CancellationToken,
        progress: Option<UnboundedSender<(String, ToolProgress)>>,
    ) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            cancel,
            progress,
        }
    }

    /// A context for tests and one-off calls: never cancelled, no progress.
    pub fn detached(tool_use_id: impl Into<String>) -> Self {
        Self::new(tool_use_id, CancellationToken::new(), None)
    }

    /// Reports progress of a running call (dropped when no one listens).
    pub fn progress(&self, p: ToolProgress) {
        if let Some(tx) = &self.progress {
            let _ = tx.send((self.tool_use_id.clone(), p));
        }
    }
}
