//! The small-model profile's recovery turns (issue 17), as an
//! `orbit_tool::ReplyCheck` the engine calls with each reply that would
//! end a prompt.
//!
//! When the reply imitates a tool exchange (`<tool_call>`,
//! `<tool_response>`, a `{"name": …, "arguments": …}` object written as
//! text), echoes the harness's invitation to call a tool, or tells the user
//! what to run instead of acting while no tool has run yet in this prompt,
//! the check answers [`RECOVERY_REMINDER`] — at most
//! [`MAX_RECOVERY_REMINDERS`] reminders of any kind per prompt. An
//! imitated exchange is never an answer, so it is reminded even after a
//! tool ran (the evaluation's `append-config`: a refused Write, then the
//! refusal echoed inside `<tool_response>` as the final answer); advice to
//! the user after tools ran may be the answer ("run `pytest` to check"),
//! so it is not.
//! A plain-text reply to a failed call is an answer, never reminded (issue
//! 38, "one answer per question"): the failure may be what was asked for
//! (a test run that fails, then the failing test named), and a reminder
//! there made the model answer twice — repeating itself, or with a line
//! of the prompt's worked examples. The model still sees the failed call's
//! own result (Claude Code's `Exit code N`, the Edit refusal with the
//! closest lines) before it replies.
//! When the prompt asks for a change (a sentence that is not a question
//! holds an editing verb: `EDITING_VERBS`) and the reply would end it
//! although no call of the prompt changed a file (each one only read or
//! printed — `sort FILE`, `sed` without `-i` — or reported that it
//! changed nothing — a `sed -i` whose pattern matched nothing), the check
//! answers
//! [`RECOVERY_NOTHING_CHANGED`], once, questioning the reply: a model that
//! answers it with text only keeps its reply (the request may have been a
//! question after all). Issue 38: a small model ran a command that only
//! prints, then said the file was changed.
//! When a question (a prompt that asks for no change) is answered right
//! after a step whose every call printed
//! nothing, the reply gets [`RECOVERY_NO_OUTPUT`] once, questioning it: an
//! empty output holds no answer, and a small model answered with a value
//! it made up. (After `mkdir`, `mv` or `rm` for a change request, silence
//! is the success.)
//! A question about what code returns or prints, answered while no
//! command ran in the prompt, gets [`RECOVERY_RUN_IT`] once, questioning
//! the reply: a small model read the function and answered from its name.
//! When the last step loaded deferred tools (the engine's ToolSearch) and
//! the model answers with text, it is asked once to call the loaded tool
//! ([`RECOVERY_AFTER_LOAD`]): a small model tends to answer from the loaded
//! definition, inventing the result.
//!
//! Data flow: stateless; the engine passes the prompt's facts
//! (`ReplyFacts`: the reply, whether a tool ran, the last step's outcome
//! until a reminder follows it, reminders sent). Detection looks at the
//! text only; it never looks at tool names.

use orbit_tool::reply_check::{Reminder, ReplyCheck, ReplyFacts};

use crate::texts::{
    RECOVERY_AFTER_LOAD, RECOVERY_NO_OUTPUT, RECOVERY_NOTHING_CHANGED, RECOVERY_REMINDER,
    RECOVERY_RUN_IT,
};

/// At most this many recovery reminders per submitted prompt.
pub const MAX_RECOVERY_REMINDERS: u32 = 2;

/// Markup of a tool exchange that small models write as text.
const EXCHANGE_TAGS: [&str; 4] = [
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
];

/// Phrases (lowercase) of a reply that tells the user what to do instead
/// of doing it.
const DESCRIBING_PHRASES: [&str; 12] = [
    "you need to run",
    "you need to first",
    "you need to read",
    "you need to open",
    "you can use the following command",
    "you can run the following",
    "run the following command",
    "use the following command",
    "you can use the `",
    "you should run",
    "you will need to",
    "you'll need to",
];

/// Phrases (lowercase) of a reply that echoes an invitation to call a tool
/// instead of calling one: the chat template's line after a result
/// ("…otherwise make your next tool call.", in [`crate::CHAT_TEMPLATE`]),
/// [`RECOVERY_REMINDER`]'s last sentence, and a paraphrase the model wrote.
const HARNESS_ECHOES: [&str; 3] = ["call the next tool", "call a tool now", "next tool call"];

/// Verbs (lowercase) of a request to change files. A word of the prompt
/// counts when it is one of these, whole, in a sentence that does not end
/// with `?`.
const EDITING_VERBS: [&str; 32] = [
    "add",
    "append",
    "bump",
    "change",
    "comment",
    "convert",
    "correct",
    "create",
    "delete",
    "disable",
    "drop",
    "edit",
    "enable",
    "fix",
    "insert",
    "make",
    "modify",
    "move",
    "prepend",
    "remove",
    "rename",
    "reorder",
    "replace",
    "reverse",
    "rewrite",
    "set",
    "sort",
    "strip",
    "trim",
    "uncomment",
    "update",
    "write",
];

/// The small-model profile's reply check (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct SmallModelReplyCheck;

impl ReplyCheck for SmallModelReplyCheck {
    fn check(&self, facts: &ReplyFacts<'_>) -> Option<Reminder> {
        if facts.reminders_sent >= MAX_RECOVERY_REMINDERS {
            return None;
        }
        let answer = facts.reply;
        let step = facts.last_step.unwrap_or_default();
        let describes = !facts.tool_ran && describes_instead_of_acting(answer);
        // A failed step answered with text is an answer (see the module
        // docs): only a load, an imitation, an echo or advice is reminded.
        let text = if step.loaded_tools {
            RECOVERY_AFTER_LOAD
        } else if imitates_tool_exchange(answer) || echoes_harness(answer) || describes {
            RECOVERY_REMINDER
        } else if !facts.may_have_written
            && !facts.answers_question
            && asks_for_change(facts.prompt)
        {
            return Some(Reminder {
                text: RECOVERY_NOTHING_CHANGED.to_string(),
                questions_reply: true,
            });
        } else if step.printed_nothing
            && !facts.answers_question
            && !answer.trim().is_empty()
            && !asks_for_change(facts.prompt)
        {
            return Some(Reminder {
                text: RECOVERY_NO_OUTPUT.to_string(),
                questions_reply: true,
            });
        } else if !facts.ran_command
            && !facts.answers_question
            && !answer.trim().is_empty()
            && asks_what_code_does(facts.prompt)
            && !asks_for_change(facts.prompt)
        {
            return Some(Reminder {
                text: RECOVERY_RUN_IT.to_string(),
                questions_reply: true,
            });
        } else {
            return None;
        };
        Some(Reminder {
            text: text.to_string(),
            questions_reply: false,
        })
    }
}

/// Whether a final reply imitates a tool exchange: tool-call markup, or a
/// `{"name": …, "arguments": …}` object, written as text.
fn imitates_tool_exchange(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    EXCHANGE_TAGS.iter().any(|tag| lower.contains(tag))
        || (has_json_key(&lower, "name")
            && (has_json_key(&lower, "arguments") || has_json_key(&lower, "parameters")))
}

/// Whether a final reply repeats the harness's invitation to call a tool.
fn echoes_harness(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    HARNESS_ECHOES.iter().any(|p| lower.contains(p))
}

/// Whether a final reply tells the user what to do instead of doing it.
fn describes_instead_of_acting(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    DESCRIBING_PHRASES.iter().any(|p| lower.contains(p))
}

/// Words (lowercase) of a question about what code does when it runs.
const RUNNING_WORDS: [&str; 8] = [
    "execute", "output", "outputs", "print", "prints", "return", "returns", "run",
];

/// Whether the prompt asks what code does when it runs (a word of
/// [`RUNNING_WORDS`], whole).
fn asks_what_code_does(prompt: &str) -> bool {
    prompt
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|word| RUNNING_WORDS.contains(&word.to_ascii_lowercase().as_str()))
}

/// Whether the prompt asks for a change: a sentence of it that does not
/// end with `?` holds one of [`EDITING_VERBS`] as a whole word.
fn asks_for_change(prompt: &str) -> bool {
    sentences(prompt)
        .filter(|sentence| !sentence.trim_end().ends_with('?'))
        .flat_map(|sentence| sentence.split(|c: char| !c.is_ascii_alphabetic()))
        .any(|word| EDITING_VERBS.contains(&word.to_ascii_lowercase().as_str()))
}

/// The prompt's sentences: each ends at a line break, or at `.`, `!` or
/// `?` followed by white space or the end (so `sort.py` stays one word).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let bytes = rest.as_bytes();
        let end = (0..bytes.len())
            .find(|&i| {
                bytes[i] == b'\n'
                    || (matches!(bytes[i], b'.' | b'!' | b'?')
                        && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace))
            })
            .map_or(bytes.len(), |i| i + 1);
        let (sentence, tail) = rest.split_at(end);
        rest = tail;
        Some(sentence)
    })
}

/// `"key"` followed (after optional whitespace) by `:`.
fn has_json_key(text: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted)
        .any(|(i, _)| text[i + quoted.len()..].trim_start().starts_with(':'))
}

#[cfg(test)]
mod tests {
    use orbit_tool::reply_check::StepFacts;

    use super::*;

    /// The check's reminder text for `reply` after `last_step`.
    fn remind(
        reply: &str,
        tool_ran: bool,
        last_step: Option<StepFacts>,
        sent: u32,
    ) -> Option<Reminder> {
        SmallModelReplyCheck.check(&ReplyFacts {
            reply,
            prompt: "What is in the file?",
            tool_ran,
            may_have_written: false,
            ran_command: false,
            last_step,
            reminders_sent: sent,
            answers_question: false,
        })
    }

    fn reminder(text: &str, questions_reply: bool) -> Option<Reminder> {
        Some(Reminder {
            text: text.to_string(),
            questions_reply,
        })
    }

    #[test]
    fn detects_imitated_exchanges_and_instructions_to_the_user() {
        let table = [
            ("<tool_call>\n{\"name\": \"Read\"}\n</tool_call>", true),
            (
                "<tool_response>MAGIC=1</tool_response>\nThe value is 1.",
                true,
            ),
            (
                "{\"name\": \"Bash\", \"arguments\": {\"command\": \"ls\"}}",
                true,
            ),
            ("{\"name\" : \"Edit\", \"parameters\": {}}", true),
            ("You need to first read the file config.txt.", true),
            (
                "You can use the following command:\n```\nwc -l data.txt\n```",
                true,
            ),
            ("To rename it, You'll need to open utils.py.", true),
            ("The value of MAGIC is 48213.", false),
            ("data.txt has 12 lines.", false),
            ("Otherwise make your next tool call.", true),
            ("Call a tool now.", true),
            ("{\"name\": \"orbit\", \"version\": \"1.0\"}", false),
            ("The arguments are named \"name\" and \"arguments\".", false),
            ("", false),
        ];
        for (answer, expected) in table {
            let detected = imitates_tool_exchange(answer)
                || echoes_harness(answer)
                || describes_instead_of_acting(answer);
            assert_eq!(detected, expected, "{answer:?}");
        }
    }

    #[test]
    fn every_harness_echo_quotes_a_text_orbit_sends_or_paraphrases_one() {
        // (phrase, the text it quotes); None: the model's paraphrase.
        let sources = [
            ("call the next tool", None),
            ("call a tool now", Some(RECOVERY_REMINDER)),
            ("next tool call", Some(crate::CHAT_TEMPLATE)),
        ];
        assert_eq!(HARNESS_ECHOES, sources.map(|(phrase, _)| phrase));
        for (phrase, source) in sources {
            if let Some(text) = source {
                assert!(text.to_lowercase().contains(phrase), "{phrase:?} is gone");
            }
        }
    }

    #[test]
    fn reminders_are_bounded_and_advice_after_a_tool_is_an_answer() {
        let imitation = "<tool_response>done</tool_response>";
        assert_eq!(remind("All done.", false, None, 0), None);
        for sent in 0..MAX_RECOVERY_REMINDERS {
            assert_eq!(
                remind(imitation, false, None, sent),
                reminder(RECOVERY_REMINDER, false)
            );
        }
        assert_eq!(remind(imitation, false, None, MAX_RECOVERY_REMINDERS), None);
        // After a tool ran, advice to the user is an answer; an imitated
        // exchange still is not.
        let ok = Some(StepFacts::default());
        assert_eq!(
            remind("You need to run `pytest` to check.", true, ok, 0),
            None
        );
        assert_eq!(
            remind(imitation, true, ok, 0),
            reminder(RECOVERY_REMINDER, false)
        );
    }

    #[test]
    fn a_load_answered_with_text_is_asked_about_a_failed_step_is_not() {
        let failed = Some(StepFacts {
            all_failed: true,
            ..StepFacts::default()
        });
        let loaded = Some(StepFacts {
            loaded_tools: true,
            ..StepFacts::default()
        });
        // (reply, the step's facts, reminders already sent, the reminder)
        let cases = [
            // One answer per question: text after a failed step stands.
            ("The string was not found in the file.", failed, 0, None),
            ("2 tests failed: test_parse is broken.", failed, 0, None),
            // The engine drops the step once a reminder followed it.
            ("The task is done.", None, 1, None),
            (
                "The timetable says 12:30.",
                loaded,
                0,
                reminder(RECOVERY_AFTER_LOAD, false),
            ),
            ("Done: the file is updated.", None, 0, None),
        ];
        for (reply, step, sent, want) in cases {
            assert_eq!(remind(reply, true, step, sent), want, "{reply:?}");
        }
    }

    #[test]
    fn a_change_asked_for_and_never_attempted_is_questioned_once() {
        let facts = |prompt, may_have_written, answers_question| ReplyFacts {
            reply: "Done: names.txt is sorted.",
            prompt,
            tool_ran: true,
            may_have_written,
            ran_command: true,
            last_step: Some(StepFacts::default()),
            reminders_sent: 0,
            answers_question,
        };
        let questioned = reminder(RECOVERY_NOTHING_CHANGED, true);
        // (prompt, a call that may write started, the reply answers the
        // reminder, the reminder)
        let cases = [
            ("Sort names.txt in place.", false, false, questioned.clone()),
            (
                "In config.json, set retries to 4",
                false,
                false,
                questioned.clone(),
            ),
            (
                "please REMOVE the blank lines\nfrom notes.txt",
                false,
                false,
                questioned,
            ),
            // A call that may have written started: not this check's to judge.
            ("Sort names.txt in place.", true, false, None),
            // Once: the reply to the reminder stands.
            ("Sort names.txt in place.", false, true, None),
            // Questions and other words are not requests to change.
            ("What does sort.py print?", false, false, None),
            ("Which function would you fix first?", false, false, None),
            ("How many lines does data.txt have", false, false, None),
            (
                "Count the sorted entries. Report the number.",
                false,
                false,
                None,
            ),
        ];
        for (prompt, wrote, answers, want) in cases {
            let got = SmallModelReplyCheck.check(&facts(prompt, wrote, answers));
            assert_eq!(got, want, "{prompt:?}");
        }
    }

    #[test]
    fn sentences_end_at_punctuation_before_white_space() {
        let got: Vec<&str> = sentences("Sort a.txt. Then b!\nWhy? end").collect();
        assert_eq!(got, ["Sort a.txt.", " Then b!", "\n", "Why?", " end"]);
    }

    #[test]
    fn an_answer_after_a_step_that_printed_nothing_is_questioned_once() {
        let silent = Some(StepFacts {
            printed_nothing: true,
            ..StepFacts::default()
        });
        let facts = |reply, last_step, answers_question| ReplyFacts {
            reply,
            prompt: "What does mystery(3) return?",
            tool_ran: true,
            may_have_written: false,
            ran_command: true,
            last_step,
            reminders_sent: 0,
            answers_question,
        };
        let questioned = reminder(RECOVERY_NO_OUTPUT, true);
        // (reply, the step, the reply answers the reminder, the reminder)
        let cases = [
            ("It returns 9.", silent, false, questioned),
            // The reply to the reminder stands.
            ("It returns 9.", silent, true, None),
            // A step with output: the answer may come from it.
            ("It returns 9.", Some(StepFacts::default()), false, None),
            ("", silent, false, None),
        ];
        // A script that may have written (`python3 mystery.py 12`) and
        // printed nothing still holds no answer to a question.
        let script = ReplyFacts {
            may_have_written: true,
            ..facts("It returns 144.", silent, false)
        };
        assert_eq!(
            SmallModelReplyCheck.check(&script),
            reminder(RECOVERY_NO_OUTPUT, true)
        );
        // After `mv` for a change request, silence is the success.
        let change = ReplyFacts {
            prompt: "Move a.txt into old/.",
            may_have_written: true,
            ..facts("Moved a.txt.", silent, false)
        };
        assert_eq!(SmallModelReplyCheck.check(&change), None);
        for (reply, step, answers, want) in cases {
            assert_eq!(
                SmallModelReplyCheck.check(&facts(reply, step, answers)),
                want,
                "{reply:?}"
            );
        }
    }

    #[test]
    fn a_question_about_what_code_returns_needs_a_run() {
        let facts = |prompt, ran_command, answers_question| ReplyFacts {
            reply: "It returns 10.",
            prompt,
            tool_ran: true,
            may_have_written: false,
            ran_command,
            last_step: Some(StepFacts::default()),
            reminders_sent: 0,
            answers_question,
        };
        let run_it = reminder(RECOVERY_RUN_IT, true);
        // (prompt, a command ran, the reply answers the reminder, the reminder)
        let cases = [
            (
                "What does mix(30) in calc.py return?",
                false,
                false,
                run_it.clone(),
            ),
            (
                "Run gen.py and tell me what it prints.",
                false,
                false,
                run_it,
            ),
            ("What does mix(30) in calc.py return?", true, false, None),
            ("What does mix(30) in calc.py return?", false, true, None),
            (
                "What is the value of PORT in config.txt?",
                false,
                false,
                None,
            ),
            // A change request that mentions a return value gets the change
            // reminder (nothing was written), not this one.
            (
                "Make add return a + b.",
                false,
                false,
                reminder(RECOVERY_NOTHING_CHANGED, true),
            ),
        ];
        for (prompt, ran, answers, want) in cases {
            assert_eq!(
                SmallModelReplyCheck.check(&facts(prompt, ran, answers)),
                want,
                "{prompt:?}"
            );
        }
    }
}
