//! [`Checkpointer`]: the engine's checkpoint hook (`orbit_tool::Checkpoints`)
//! over a session's [`Store`].
//!
//! Nothing happens when a session starts or a prompt starts. Before the
//! prompt's first call whose facts say it can write, the prompt's number
//! is read from the transcript (its `result` records, counted
//! incrementally) and a `before` checkpoint is taken; each writing call is
//! probed ([`crate::Probe`]) for the files it changed, and the paths it
//! names outside the project are noted as not restorable. When the prompt
//! ends, an `after` checkpoint records what orbit left, with the changed
//! files and the not-restorable list (paths git ignores among them). A
//! failing snapshot turns checkpoints off for the session with one warning.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use orbit_tool::CallFacts;
use orbit_tool::workspace::lexical;

use crate::NotRestorable;
use crate::probe::Probe;
use crate::store::{Kind, Store};

/// The sessions of this process whose prompt is running: a subagent (no
/// transcript of its own) asks the one of its project to take its
/// checkpoint, since the parent's `Agent` call is read-only and took none.
static RUNNING: Mutex<Vec<Weak<Checkpointer>>> = Mutex::new(Vec::new());

/// The engine hook of one session.
#[derive(Debug)]
pub struct Checkpointer {
    me: Weak<Checkpointer>,
    data_dir: PathBuf,
    cwd: PathBuf,
    session_id: String,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    store: Option<Store>,
    /// Result records counted so far, and the transcript offset reached.
    results: (u32, u64),
    prompt: Option<PromptRun>,
    off: bool,
}

#[derive(Debug, Default)]
struct PromptRun {
    /// Set once the `before` checkpoint is taken.
    number: Option<u32>,
    probes: BTreeMap<String, Probe>,
    changed: BTreeSet<String>,
    not_restorable: Vec<NotRestorable>,
    /// Written paths inside the project (checked against git's ignores).
    written: BTreeSet<String>,
}

impl Checkpointer {
    /// The hook of session `session_id` in `cwd` (no I/O until a prompt
    /// writes).
    pub fn new(data_dir: &Path, cwd: &Path, session_id: &str) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            me: me.clone(),
            data_dir: data_dir.to_path_buf(),
            cwd: cwd.to_path_buf(),
            session_id: session_id.to_string(),
            inner: Mutex::default(),
        })
    }

    fn root(&self) -> PathBuf {
        self.cwd.canonicalize().unwrap_or_else(|_| self.cwd.clone())
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut guard = match self.inner.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut guard)
    }

    /// Another session of this process in `root` whose prompt is running.
    fn running_parent(&self, root: &Path) -> Option<Arc<Self>> {
        let running = match RUNNING.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        running
            .iter()
            .filter_map(Weak::upgrade)
            .find(|other| !std::ptr::eq(other.as_ref(), self) && other.root() == root)
    }

    /// Marks this session's prompt as running (or not) for its subagents.
    fn set_running(&self, running: bool) {
        let mut list = match RUNNING.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        list.retain(|w| w.strong_count() > 0 && !Weak::ptr_eq(w, &self.me));
        if running {
            list.push(self.me.clone());
        }
    }

    /// Takes the prompt's `before` checkpoint when it has none yet.
    fn ensure_before(&self, inner: &mut Inner) {
        let root = self.root();
        let transcript = orbit_session::transcript_path(&self.data_dir, &root, &self.session_id);
        if !transcript.is_file() {
            // No transcript of its own (a subagent's sidechain): nothing
            // could rewind it; the running parent's checkpoint covers its
            // writes, taken now if the parent has not written yet.
            inner.off = true;
            if let Some(parent) = self.running_parent(&root) {
                parent.with(|outer| {
                    if !outer.off && outer.prompt.as_ref().is_some_and(|p| p.number.is_none()) {
                        parent.ensure_before(outer);
                    }
                });
            }
            return;
        }
        let (more, offset) = orbit_session::fork::count_results(&transcript, inner.results.1);
        inner.results = (inner.results.0 + more, offset);
        let number = inner.results.0 + 1;
        let store = inner
            .store
            .get_or_insert_with(|| Store::open(&self.data_dir, &root, &self.session_id));
        let run = inner.prompt.get_or_insert_with(PromptRun::default);
        run.number = Some(number);
        let taken = store
            .snapshot()
            .and_then(|snap| store.record(number, Kind::Before, &snap).map(|_| ()));
        if let Err(err) = taken {
            inner.off = true;
            tracing::warn!("checkpoints are off for this session: {err}");
        }
    }
}

impl orbit_tool::Checkpoints for Checkpointer {
    fn prompt_started(&self) {
        self.with(|inner| inner.prompt = Some(PromptRun::default()));
        self.set_running(true);
    }

    fn before_write(&self, call_id: &str, facts: &CallFacts) {
        let root = self.root();
        self.with(|inner| {
            if inner.off {
                return;
            }
            if inner.prompt.as_ref().is_none_or(|p| p.number.is_none()) {
                self.ensure_before(inner);
            }
            let Some(run) = inner.prompt.as_mut() else {
                return;
            };
            for path in facts.writes.iter().map(|p| lexical(p)) {
                match path.strip_prefix(&root).ok().and_then(Path::to_str) {
                    Some(rel) if !rel.is_empty() => {
                        run.written.insert(rel.to_string());
                    }
                    Some(_) => {}
                    None => {
                        let shown = path.display().to_string();
                        if !run.not_restorable.iter().any(|n| n.path == shown) {
                            let reason = "outside the project".to_string();
                            run.not_restorable.push(NotRestorable::new(&shown, reason));
                        }
                    }
                }
            }
            run.probes
                .insert(call_id.to_string(), Probe::before(&facts.writes));
        });
    }

    fn after_write(&self, call_id: &str) {
        let root = self.root();
        self.with(|inner| {
            let Some(run) = inner.prompt.as_mut() else {
                return;
            };
            if let Some(probe) = run.probes.remove(call_id) {
                for path in probe.changed().iter().map(|p| lexical(p)) {
                    let shown = path
                        .strip_prefix(&root)
                        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string());
                    run.changed.insert(shown);
                }
            }
        });
    }

    fn prompt_finished(&self) {
        self.set_running(false);
        self.with(|inner| {
            let Some(run) = inner.prompt.take() else {
                return;
            };
            let (Some(number), Some(store), false) = (run.number, inner.store.as_mut(), inner.off)
            else {
                return;
            };
            let written: Vec<String> = run.written.into_iter().collect();
            let mut not_restorable = run.not_restorable;
            for path in store.ignored(&written) {
                not_restorable.push(NotRestorable::new(&path, "ignored by git".to_string()));
            }
            let taken = store.snapshot().and_then(|snap| {
                store.record(number, Kind::After, &snap)?;
                if let Some(last) = store.manifest.checkpoints.last_mut() {
                    last.changed = run.changed.into_iter().collect();
                    last.not_restorable.extend(not_restorable);
                }
                store.save()
            });
            if let Err(err) = taken {
                inner.off = true;
                tracing::warn!("checkpoints are off for this session: {err}");
            }
        });
    }
}
