//! Output styles: what the `outputStyle` setting and `/output-style` pick,
//! and the system prompt text each one adds.
//!
//! Where they come from, a later one winning a name clash: the built-ins
//! Claude Code 2.1.332 has ([`BUILTIN_STYLES`]: `default`, `Proactive`,
//! `Concise`, `Explanatory`, `Learning`, their texts as observed in its
//! requests, in `assets/output-styles/`), the user's
//! `$CLAUDE_CONFIG_DIR/output-styles/*.md` (or `~/.claude/output-styles`)
//! and `~/.orbit/output-styles/*.md`, then the project's
//! `.claude/output-styles/*.md` and `.orbit/output-styles/*.md` — the
//! project's only in a trusted folder (a style is prompt text the
//! repository would put in front of the model).
//!
//! Data flow: [`StyleDirs`] → [`load_styles`] lists each directory and
//! reads every `*.md` through `orbit_untrusted` (the project's files as
//! hostile input: a regular file inside the project, at most
//! [`STYLE_FILE_MAX_BYTES`]; one warning per refused file) → front matter
//! (`name`, default the file name; `description`;
//! `keep-coding-instructions`, default false) by `orbit_commands`' reader
//! → [`OutputStyle`]s. [`find`] picks one by name (any case);
//! [`OutputStyle::prompt_section`] is the text the system prompt ends
//! with, and [`STYLE_INTRO`] the sentence that replaces its first one.

use std::path::{Path, PathBuf};

use orbit_commands::{front_scalar, split_front_matter};
use orbit_untrusted::{ReadOpts, read_untrusted};

/// The style that changes nothing.
pub const DEFAULT_STYLE: &str = "default";
/// Largest style file read, in bytes (a longer one is cut).
pub const STYLE_FILE_MAX_BYTES: usize = 64 * 1024;
/// The style folder's name under each root (`~/.claude`, `.orbit`, …).
const STYLE_DIR: &str = "output-styles";
/// Most style files read from one directory.
const STYLE_FILES_MAX: usize = 200;

/// What a styled system prompt says first (Claude Code's sentence).
pub const STYLE_INTRO: &str = "You are an interactive agent that helps users according to your \"Output Style\", which describes how you should respond to user queries.";

/// The reminder after a style's text when it sets none of its own.
const DEFAULT_REMINDER: &str = "Remember to follow the specific guidelines for this style.";

/// Claude Code 2.1.332's built-in styles: name, description, prompt file,
/// reminder.
pub const BUILTIN_STYLES: [(&str, &str, &str, &str); 4] = [
    (
        "Proactive",
        "Claude executes immediately, minimizes interruptions, and prefers action over planning",
        include_str!("../assets/output-styles/proactive.md"),
        "Execute autonomously, minimize interruptions, prefer action over planning.",
    ),
    (
        "Concise",
        "Claude responds tersely, leading with results and skipping preamble and narration",
        include_str!("../assets/output-styles/concise.md"),
        "Be concise: lead with the result, skip preamble and narration, keep only what the user needs.",
    ),
    (
        "Explanatory",
        "Claude explains its implementation choices and codebase patterns",
        include_str!("../assets/output-styles/explanatory.md"),
        DEFAULT_REMINDER,
    ),
    (
        "Learning",
        "Claude pauses and asks you to write small pieces of code for hands-on practice",
        include_str!("../assets/output-styles/learning.md"),
        DEFAULT_REMINDER,
    ),
];

/// Where a style comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StyleSource {
    /// One of Claude Code's.
    BuiltIn,
    /// A file of the user's.
    User(PathBuf),
    /// A file of the project's (trusted folder only).
    Project(PathBuf),
}

/// One output style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputStyle {
    /// The name `outputStyle` and `/output-style` use.
    pub name: String,
    /// One line for the picker.
    pub description: String,
    /// The text added to the system prompt; None for `default`.
    pub prompt: Option<String>,
    /// The reminder line after the text.
    pub reminder: String,
    /// Front matter `keep-coding-instructions` (built-ins: true).
    pub keep_coding_instructions: bool,
    /// Where it comes from.
    pub source: StyleSource,
}

impl OutputStyle {
    /// Whether this is the style that changes nothing.
    pub fn is_default(&self) -> bool {
        self.prompt.is_none()
    }

    /// What the system prompt ends with: `# Output Style: NAME`, the text,
    /// and the reminder line (None for `default`).
    pub fn prompt_section(&self) -> Option<String> {
        let prompt = self.prompt.as_deref()?;
        Some(format!(
            "# Output Style: {}\n{}\n\n{} output style is active. {}",
            self.name,
            prompt.trim_end(),
            self.name,
            self.reminder
        ))
    }
}

/// The built-in styles, `default` first.
pub fn builtin_styles() -> Vec<OutputStyle> {
    let mut styles = vec![OutputStyle {
        name: DEFAULT_STYLE.into(),
        description: "Claude completes coding tasks efficiently and provides concise responses"
            .into(),
        prompt: None,
        reminder: String::new(),
        keep_coding_instructions: true,
        source: StyleSource::BuiltIn,
    }];
    styles.extend(
        BUILTIN_STYLES
            .iter()
            .map(|(name, description, prompt, reminder)| OutputStyle {
                name: (*name).into(),
                description: (*description).into(),
                prompt: Some((*prompt).into()),
                reminder: (*reminder).into(),
                keep_coding_instructions: true,
                source: StyleSource::BuiltIn,
            }),
    );
    styles
}

/// Where style files are.
#[derive(Debug, Clone)]
pub struct StyleDirs {
    /// The project directory.
    pub project_root: PathBuf,
    /// The home directory; None: no user styles.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`, used instead of `~/.claude`.
    pub claude_config_dir: Option<PathBuf>,
    /// Whether the project's styles may load.
    pub trusted: bool,
}

impl StyleDirs {
    /// The directories, lowest precedence first; `true` marks the project's.
    fn dirs(&self) -> Vec<(PathBuf, bool)> {
        let claude = self.claude_config_dir.clone();
        let claude = claude.or_else(|| self.home.as_ref().map(|h| h.join(".claude")));
        let orbit = self.home.as_ref().map(|h| h.join(".orbit"));
        let user = claude.into_iter().chain(orbit).map(|root| (root, false));
        let project = [".claude", ".orbit"]
            .into_iter()
            .filter(|_| self.trusted)
            .map(|sub| (self.project_root.join(sub), true));
        user.chain(project)
            .map(|(root, project)| (root.join(STYLE_DIR), project))
            .collect()
    }
}

/// Every style: the built-ins, then the files of `dirs` (a later one
/// replaces an earlier one of the same name, any case). `warn` gets one
/// line per file that could not be read.
pub fn load_styles(dirs: &StyleDirs, warn: &mut dyn FnMut(&str)) -> Vec<OutputStyle> {
    let mut styles = builtin_styles();
    for (dir, project) in dirs.dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .take(STYLE_FILES_MAX)
            .collect();
        paths.sort();
        for path in paths {
            let opts = if project {
                ReadOpts::in_project(&dirs.project_root, STYLE_FILE_MAX_BYTES)
            } else {
                ReadOpts::user_file(STYLE_FILE_MAX_BYTES)
            };
            match read_untrusted(&path, &opts) {
                Ok(file) => {
                    let style = parse_style(&path, &file.text(), project);
                    styles.retain(|s| !s.name.eq_ignore_ascii_case(&style.name));
                    styles.push(style);
                }
                Err(err) if err.is_not_found() => {}
                Err(err) => warn(&format!("skipped output style {}: {err}", path.display())),
            }
        }
    }
    styles
}

/// One style file.
fn parse_style(path: &Path, text: &str, project: bool) -> OutputStyle {
    let (front, body) = split_front_matter(text);
    let field = |key: &str| {
        front
            .and_then(|f| front_scalar(f, key))
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = field("name").unwrap_or(stem);
    OutputStyle {
        description: field("description").unwrap_or_else(|| format!("Custom {name} output style")),
        keep_coding_instructions: field("keep-coding-instructions")
            .is_some_and(|v| v.eq_ignore_ascii_case("true")),
        prompt: Some(body.trim().to_string()),
        reminder: DEFAULT_REMINDER.into(),
        source: match project {
            true => StyleSource::Project(path.to_path_buf()),
            false => StyleSource::User(path.to_path_buf()),
        },
        name,
    }
}

/// The style the `outputStyle` setting `name` selects among `dirs`' (None:
/// `default`, or a name no style has — then `warn` says so once).
pub fn selected(
    name: Option<&str>,
    dirs: &StyleDirs,
    warn: &mut dyn FnMut(&str),
) -> Option<OutputStyle> {
    let name = name.map(str::trim).filter(|n| !n.is_empty())?;
    if name.eq_ignore_ascii_case(DEFAULT_STYLE) {
        return None;
    }
    let styles = load_styles(dirs, warn);
    let style = find(&styles, name).cloned();
    if style.is_none() {
        warn(&format!(
            "outputStyle \"{name}\" is not a known output style; using the default"
        ));
    }
    style
}

/// `base` (a system prompt starting with `identity`, its identity
/// paragraph) with `style` applied as Claude Code 2.1.332 applies one: the
/// first sentence says the agent follows its "Output Style"; the style's
/// text and reminder line end the prompt. With `keep-coding-instructions:
/// false` the rest of the identity paragraph (the coding rules) is left
/// out too. `base` unchanged for `default`, or when it does not start
/// with `identity` (a replaced prompt).
pub fn apply(base: &str, identity: &str, style: Option<&OutputStyle>) -> String {
    let Some((style, section)) = style.and_then(|s| Some((s, s.prompt_section()?))) else {
        return base.to_string();
    };
    let Some(rest) = base.strip_prefix(identity) else {
        return base.to_string();
    };
    let name = identity
        .split_once(',')
        .map_or("You are orbit", |(first, _)| first);
    let identity = match identity.split_once(". ") {
        Some((_, coding)) if style.keep_coding_instructions => {
            format!("{name}. {STYLE_INTRO} {coding}")
        }
        _ => format!("{name}. {STYLE_INTRO}"),
    };
    format!("{identity}{rest}\n\n{section}")
}

/// Where a session's output style lives (`ToolUseContext` extension key,
/// a [`StyleState`]): `/output-style` switches it mid-session.
pub const OUTPUT_STYLE_KEY: &str = "orbit-memory/output-style";

/// A session's unstyled system prompt, its current style and where its
/// styles come from.
#[derive(Debug, Default)]
pub struct StyleState {
    /// The prompt before any style and its identity paragraph; None when
    /// the prompt is not orbit's default (styles do not apply).
    base: Option<(String, String)>,
    current: std::sync::Mutex<Option<OutputStyle>>,
    /// Where the session's styles are (None: built-ins only).
    pub dirs: Option<StyleDirs>,
}

impl StyleState {
    /// The state of a session whose prompt before styling is `base`
    /// (starting with `identity`), styled with `style`, its style files in
    /// `dirs`.
    pub fn new(base: String, identity: &str, style: Option<OutputStyle>, dirs: StyleDirs) -> Self {
        Self {
            base: base
                .starts_with(identity)
                .then(|| (base, identity.to_string())),
            current: std::sync::Mutex::new(style),
            dirs: Some(dirs),
        }
    }

    /// Every style the session may switch to.
    pub fn styles(&self, warn: &mut dyn FnMut(&str)) -> Vec<OutputStyle> {
        match &self.dirs {
            Some(dirs) => load_styles(dirs, warn),
            None => builtin_styles(),
        }
    }

    /// The current style's name (`default` when none).
    pub fn current_name(&self) -> String {
        let current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        current
            .as_ref()
            .map_or_else(|| DEFAULT_STYLE.to_string(), |s| s.name.clone())
    }

    /// Switches to `style` (None: `default`): the session's prompt now,
    /// `prompt`, with the old style's part replaced by the new one's (what
    /// was added after it, such as plan mode's text, kept). None when
    /// styles do not apply to this session's prompt.
    pub fn switch(&self, prompt: &str, style: Option<OutputStyle>) -> Option<String> {
        let (base, identity) = self.base.as_ref()?;
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        let old = apply(base, identity, current.as_ref());
        let added = prompt.strip_prefix(old.as_str()).unwrap_or_default();
        let new = apply(base, identity, style.as_ref()) + added;
        *current = style;
        Some(new)
    }
}

/// The style called `name` (any case).
pub fn find<'a>(styles: &'a [OutputStyle], name: &str) -> Option<&'a OutputStyle> {
    styles
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn styles_apply_and_switch() {
        let identity = "You are orbit, a coding agent. Be terse.";
        let base = format!("{identity}\n\n# Environment\nx");
        let styles = builtin_styles();
        let explanatory = find(&styles, "explanatory").cloned();
        let styled = apply(&base, identity, explanatory.as_ref());
        assert!(styled.starts_with(&format!("You are orbit. {STYLE_INTRO} Be terse.\n\n# Environment\nx\n\n# Output Style: Explanatory\n")));
        assert_eq!(
            apply("custom prompt", identity, explanatory.as_ref()),
            "custom prompt"
        );
        let dirs = StyleDirs {
            project_root: PathBuf::from("/nonexistent"),
            home: None,
            claude_config_dir: None,
            trusted: false,
        };
        let state = StyleState::new(base.clone(), identity, explanatory, dirs);
        assert_eq!(state.styles(&mut |w| panic!("{w}")).len(), 5);
        assert_eq!(state.current_name(), "Explanatory");
        let plain = state.switch(&format!("{styled}\n\n# Plan mode"), None);
        assert_eq!(plain, Some(format!("{base}\n\n# Plan mode")));
        assert_eq!(state.current_name(), "default");
        assert_eq!(StyleState::default().switch("p", None), None);
    }

    #[test]
    fn builtins_files_and_trust() {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let project = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        write(
            &home.path().join(".claude/output-styles/pirate.md"),
            "---\nname: Pirate\ndescription: Arr\nkeep-coding-instructions: true\n---\nTalk like a pirate.\n",
        );
        write(
            &project.path().join(".claude/output-styles/terse.md"),
            "Only one word.\n",
        );
        for trusted in [false, true] {
            let dirs = StyleDirs {
                project_root: project.path().to_path_buf(),
                home: Some(home.path().to_path_buf()),
                claude_config_dir: None,
                trusted,
            };
            let styles = load_styles(&dirs, &mut |w| panic!("{w}"));
            let pirate = find(&styles, "pirate").unwrap_or_else(|| panic!("no pirate"));
            assert_eq!(pirate.description, "Arr");
            assert!(pirate.keep_coding_instructions);
            assert_eq!(
                pirate.prompt_section().as_deref(),
                Some(
                    "# Output Style: Pirate\nTalk like a pirate.\n\nPirate output style is active. Remember to follow the specific guidelines for this style."
                )
            );
            let terse = find(&styles, "terse");
            assert_eq!(terse.is_some(), trusted);
            if let Some(terse) = terse {
                assert_eq!(terse.description, "Custom terse output style");
                assert!(!terse.keep_coding_instructions);
            }
            assert!(find(&styles, "default").is_some_and(OutputStyle::is_default));
            assert!(find(&styles, "Explanatory").is_some());
        }
    }
}
