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
//! [`RECOVERY_NOTHING_CHANGED`], questioning the reply (again after a
//! further step that changed nothing, within [`MAX_RECOVERY_REMINDERS`]): a model that
//! answers it with text only keeps its reply (the request may have been a
//! question after all). Issue 38: a small model ran a command that only
//! prints, then said the file was changed.
//! When a question (a prompt that asks for no change and asks something:
//! `asks_question`) is answered right after a step whose every call printed
//! nothing, the reply gets [`RECOVERY_NO_OUTPUT`] once, questioning it: an
//! empty output holds no answer, and a small model answered with a value
//! it made up. (After `mkdir`, `mv` or `rm` for a change request, silence
//! is the success.)
//! A question about what code returns or prints, answered while no
//! command ran in the prompt, gets [`RECOVERY_RUN_IT`] once, questioning
//! the reply: a small model read the function and answered from its name.
//! When the prompt asks to change a file it names (`steps.txt`) and the
//! calls wrote only other files, one of them named after it
//! (`steps_reversed.txt`, `steps.txt.new`), the reply gets
//! [`recovery_wrote_a_copy`] once, questioning it (`names::copy_instead`;
//! not when the prompt asks for a copy or backup).
//! A reply after a tool step that names a file (`app.cfg`, `src/x.rs`)
//! which neither the request nor any call or result of the prompt showed
//! (`ReplyFacts::shown`) gets [`recovery_unseen_name`] once, and the next
//! reply is the answer (`names`): after a long output a small model
//! answered with a worked example's sentence from its own prompt.
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
    RECOVERY_RUN_IT, recovery_unseen_name, recovery_wrote_a_copy,
};

mod names;

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
/// with `?` (and `add` not as `add up`, a sum).
const EDITING_VERBS: [&str; 37] = [
    "add",
    "append",
    "bump",
    "capitalize",
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
    "indent",
    "insert",
    "make",
    "modify",
    "move",
    "place",
    "prepend",
    "put",
    "remove",
    "rename",
    "reorder",
    "replace",
    "reverse",
    "rewrite",
    "set",
    "sort",
    "strip",
    "swap",
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
        } else if let Some((copy, original)) = names::copy_instead(facts.prompt, facts.written)
            .filter(|_| facts.may_have_written && !facts.answers_question)
            .filter(|_| asks_for_change(facts.prompt))
        {
            return Some(Reminder {
                text: recovery_wrote_a_copy(copy, original),
                questions_reply: true,
            });
        } else if step.printed_nothing
            && !facts.answers_question
            && !answer.trim().is_empty()
            && asks_question(facts.prompt)
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
            && asks_question(facts.prompt)
            && !asks_for_change(facts.prompt)
        {
            return Some(Reminder {
                text: RECOVERY_RUN_IT.to_string(),
                questions_reply: true,
            });
        } else if let Some((name, shown)) = facts
            .shown
            .filter(|_| facts.last_step.is_some() && !facts.answers_question)
            .and_then(|shown| Some((names::unseen_file_name(answer, facts.prompt, shown)?, shown)))
        {
            return Some(Reminder {
                text: recovery_unseen_name(name, names::last_line(shown)),
                questions_reply: false,
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
    words(prompt).any(|word| RUNNING_WORDS.contains(&word.as_str()))
}

/// Whether the prompt asks for a change: a sentence of it that does not
/// end with `?` holds one of [`EDITING_VERBS`] as a whole word (`add`
/// not followed by `up`), and its last sentence is not a question that
/// starts with a question word ("Add up the column. What is the total?"
/// asks for a number).
fn asks_for_change(prompt: &str) -> bool {
    let ends_with_question = sentences(prompt)
        .map(str::trim)
        .filter(|sentence| !sentence.is_empty())
        .last()
        .is_some_and(|last| {
            last.ends_with('?')
                && words(last)
                    .next()
                    .is_some_and(|first| QUESTION_WORDS.contains(&first.as_str()))
        });
    !ends_with_question
        && sentences(prompt)
            .filter(|sentence| !sentence.trim_end().ends_with('?'))
            .any(|sentence| {
                let sentence_words: Vec<String> = words(sentence).collect();
                sentence_words.iter().enumerate().any(|(i, word)| {
                    EDITING_VERBS.contains(&word.as_str())
                        && !(word == "add"
                            && sentence_words.get(i + 1).is_some_and(|next| next == "up"))
                })
            })
}

/// Words (lowercase) that make a prompt a question or a request for an
/// answer: a question word, or a verb asking to be told something.
const QUESTION_WORDS: [&str; 14] = [
    "count", "find", "how", "list", "name", "report", "show", "tell", "what", "when", "where",
    "which", "who", "why",
];

/// Whether the prompt asks for an answer: a sentence of it ends with `?`,
/// or it holds a word of [`QUESTION_WORDS`]. The reminders about an answer
/// with nothing behind it (no output, nothing run) are for such prompts
/// only: a request that only changes files ("Put the line … first") has
/// no answer to question.
fn asks_question(prompt: &str) -> bool {
    sentences(prompt).any(|sentence| sentence.trim_end().ends_with('?'))
        || words(prompt).any(|word| QUESTION_WORDS.contains(&word.as_str()))
}

/// The text's words, lowercase: its runs of ASCII letters.
fn words(text: &str) -> impl Iterator<Item = String> {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
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
mod tests;
