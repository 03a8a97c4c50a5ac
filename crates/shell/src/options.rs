//! Option spellings as data: the options a rule names exactly, and the
//! prefixes that take a value glued on (`--stat=…`, `-U3`). The git facts
//! and the read-only rules keep their sets as `OptionSet` constants and ask
//! [`OptionSet::matches`] of each argument.

/// A set of options: spelled exactly, or starting with a prefix.
pub(crate) struct OptionSet {
    /// Options that match only as written.
    pub(crate) exact: &'static [&'static str],
    /// Prefixes: an argument starting with one matches.
    pub(crate) prefixes: &'static [&'static str],
}

impl OptionSet {
    /// Whether `arg` is one of the set's options.
    pub(crate) fn matches(&self, arg: &str) -> bool {
        self.exact.contains(&arg) || self.prefixes.iter().any(|p| arg.starts_with(p))
    }
}
