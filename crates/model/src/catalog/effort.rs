//! Reasoning effort (Anthropic's `output_config.effort`): the levels, which
//! of them a model takes and its default, and how a level the user asked
//! for is fitted to the model — as Claude Code 2.1.332 does it: a level
//! above what the model takes steps down (`xhigh` → `high` on a model
//! without `xhigh`, `max` → `high` on one without `max` or `xhigh`), a
//! model with no effort setting gets none, and `auto` sends none (the
//! model decides).
//!
//! Data flow: `--effort` / `CLAUDE_CODE_EFFORT_LEVEL` / settings
//! `effortLevel` → [`EffortChoice::parse`] (the config) → the Anthropic
//! client → [`EffortSupport::fit`] with the model's row → the request's
//! `output_config.effort`.

/// One effort level, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effort {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high` (the default of models that name none).
    High,
    /// `xhigh`.
    XHigh,
    /// `max`.
    Max,
}

impl Effort {
    /// Every level, lowest first.
    pub const ALL: [Effort; 5] = [
        Effort::Low,
        Effort::Medium,
        Effort::High,
        Effort::XHigh,
        Effort::Max,
    ];

    /// The level as the API spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::XHigh => "xhigh",
            Effort::Max => "max",
        }
    }
}

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffortChoice {
    /// This level (fitted to the model).
    Level(Effort),
    /// `auto`: no `output_config.effort`; the model decides.
    Auto,
}

impl EffortChoice {
    /// `low`, `medium`, `high`, `xhigh`, `max` or `auto` (trimmed, any
    /// case); None for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("auto") {
            return Some(EffortChoice::Auto);
        }
        Effort::ALL
            .into_iter()
            .find(|e| e.as_str().eq_ignore_ascii_case(text))
            .map(EffortChoice::Level)
    }

    /// The values [`Self::parse`] takes, for error lines.
    pub const VALUES: &'static str = "low, medium, high, xhigh, max, auto";
}

/// The effort levels a model takes and its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffortSupport {
    /// Takes `xhigh`.
    pub xhigh: bool,
    /// Takes `max`.
    pub max: bool,
    /// Sent when the user chose none.
    pub default: Effort,
    /// Whether Claude Code's table names that default (else it is its
    /// fallback `high`): a user settings file's `effortLevel` applies only
    /// to models without one.
    pub own_default: bool,
}

impl EffortSupport {
    /// `low`…`high` only, default `high`.
    pub const BASIC: EffortSupport = EffortSupport {
        xhigh: false,
        max: false,
        default: Effort::High,
        own_default: false,
    };

    /// `low`…`high` and `max`, default `high`.
    pub const WITH_MAX: EffortSupport = EffortSupport {
        xhigh: false,
        max: true,
        default: Effort::High,
        own_default: false,
    };

    /// Every level, with its own `default`.
    pub const fn all(default: Effort) -> EffortSupport {
        EffortSupport {
            xhigh: true,
            max: true,
            default,
            own_default: true,
        }
    }

    /// Whether the model takes `level`.
    pub fn takes(self, level: Effort) -> bool {
        match level {
            Effort::XHigh => self.xhigh,
            Effort::Max => self.max,
            _ => true,
        }
    }

    /// The level to send for `choice` (None = the user chose nothing):
    /// the highest level the model takes at or below the one asked for;
    /// None for `auto`.
    pub fn fit(self, choice: Option<EffortChoice>) -> Option<Effort> {
        let wanted = match choice {
            None => self.default,
            Some(EffortChoice::Auto) => return None,
            Some(EffortChoice::Level(level)) => level,
        };
        Effort::ALL
            .into_iter()
            .rev()
            .find(|level| *level <= wanted && self.takes(*level))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_step_down_to_what_the_model_takes() {
        let opus_4_6 = EffortSupport::WITH_MAX;
        let fit = |s: EffortSupport, l| s.fit(Some(EffortChoice::Level(l)));
        // Claude Code 2.1.332: xhigh on Opus 4.6 / Sonnet 4.6 → high; max stays.
        assert_eq!(fit(opus_4_6, Effort::XHigh), Some(Effort::High));
        assert_eq!(fit(opus_4_6, Effort::Max), Some(Effort::Max));
        // Opus 4.5: max → high.
        assert_eq!(fit(EffortSupport::BASIC, Effort::Max), Some(Effort::High));
        assert_eq!(
            fit(EffortSupport::all(Effort::Medium), Effort::Low),
            Some(Effort::Low)
        );
        assert_eq!(
            EffortSupport::all(Effort::Medium).fit(None),
            Some(Effort::Medium)
        );
        assert_eq!(EffortSupport::BASIC.fit(Some(EffortChoice::Auto)), None);
        assert_eq!(
            EffortChoice::parse(" XHigh "),
            Some(EffortChoice::Level(Effort::XHigh))
        );
        assert_eq!(EffortChoice::parse("auto"), Some(EffortChoice::Auto));
        assert_eq!(EffortChoice::parse("turbo"), None);
    }
}
