//! Permission decisions (P1 basic). PLACEHOLDER — to be implemented.

/// `--permission-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    #[default]
    Default,
    AcceptEdits,
    Plan,
    BypassPermissions,
}

#[derive(Debug, Clone, Default)]
pub struct PermissionConfig {
    pub mode: PermissionMode,
    pub allowed_tools: Vec<String>,
    pub disallowed_tools: Vec<String>,
    /// No one to ask: an `ask` becomes a deny.
    pub headless: bool,
}
