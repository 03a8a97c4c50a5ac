//! TEMPORARY SHIM — delete at merge and use `orbit_composer::custom`
//! (branch i16-composer), which has this exact API. Custom slash commands:
//! `*.md` files in `.claude/commands/` and `.orbit/commands/` of the
//! project and of the home directory; the file name is the command,
//! `$ARGUMENTS` in the body is replaced by what follows it.

use std::path::Path;

/// One custom command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CustomCommand {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) body: String,
}

impl CustomCommand {
    /// The prompt the command sends.
    pub(crate) fn expand(&self, args: &str) -> String {
        if self.body.contains("$ARGUMENTS") {
            self.body.replace("$ARGUMENTS", args)
        } else if args.is_empty() {
            self.body.clone()
        } else {
            format!("{}\n\n{args}", self.body)
        }
    }
}

/// The project's commands first, then the home's (a name once).
pub(crate) fn load_custom_commands(project_root: &Path, home: Option<&Path>) -> Vec<CustomCommand> {
    let mut out: Vec<CustomCommand> = Vec::new();
    let roots = std::iter::once(project_root).chain(home);
    for root in roots {
        for dir in [".orbit/commands", ".claude/commands"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for path in paths {
                if path.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let (Some(name), Ok(text)) = (path.file_stem(), std::fs::read_to_string(&path))
                else {
                    continue;
                };
                let name = name.to_string_lossy().into_owned();
                if out.iter().any(|c| c.name == name) {
                    continue;
                }
                let body = text.trim().to_string();
                let description = body.lines().next().unwrap_or_default().to_string();
                out.push(CustomCommand {
                    name,
                    description,
                    body,
                });
            }
        }
    }
    out
}
