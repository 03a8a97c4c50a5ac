//! The small-model reply check's cases.

use orbit_tool::reply_check::StepFacts;

use super::*;

/// A reply after a tool step that ran a command and wrote nothing; tests
/// change the fields they are about.
fn after_a_step<'a>(reply: &'a str, prompt: &'a str) -> ReplyFacts<'a> {
    ReplyFacts {
        reply,
        prompt,
        tool_ran: true,
        may_have_written: false,
        ran_command: true,
        written: &[],
        shown: None,
        last_step: Some(StepFacts::default()),
        reminders_sent: 0,
        answers_question: false,
    }
}

/// The check's reminder text for `reply` after `last_step`.
fn remind(
    reply: &str,
    tool_ran: bool,
    last_step: Option<StepFacts>,
    sent: u32,
) -> Option<Reminder> {
    SmallModelReplyCheck.check(&ReplyFacts {
        tool_ran,
        ran_command: false,
        last_step,
        reminders_sent: sent,
        ..after_a_step(reply, "What is in the file?")
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
        may_have_written,
        answers_question,
        ..after_a_step("Done: names.txt is sorted.", prompt)
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
            questioned.clone(),
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
        // `add up` is a sum; a last sentence that asks with a question
        // word makes the prompt a question.
        (
            "Add up the score column of scores.csv. What is the total?",
            false,
            false,
            None,
        ),
        ("Add up the numbers in a.txt.", false, false, None),
        (
            "Put the line ; x as the first line of conf.ini.",
            false,
            false,
            questioned.clone(),
        ),
        // A yes/no question after a change request keeps it one.
        (
            "Fix the bug in even.py. Does it pass now?",
            false,
            false,
            questioned.clone(),
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
        last_step,
        answers_question,
        ..after_a_step(reply, "What does mystery(3) return?")
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
    // A prompt that asks nothing (no `?`, no question word) has no answer
    // to question, whatever its verb: silence may be its success.
    let no_question = ReplyFacts {
        prompt: "Tidy up conf.ini.",
        ..facts("Tidied conf.ini.", silent, false)
    };
    assert_eq!(SmallModelReplyCheck.check(&no_question), None);
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
        ran_command,
        answers_question,
        ..after_a_step("It returns 10.", prompt)
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

#[test]
fn a_reply_naming_an_unseen_file_is_asked_again_once_per_step() {
    let shown = "{\"command\":\"sh step.sh 1\"}\nstep 1 log line 1: ok\nstep 1 finished.\n";
    let facts = |reply| ReplyFacts {
        shown: Some(shown),
        ..after_a_step(reply, "Run sh step.sh 1 with the Bash tool.")
    };
    let check = |facts: ReplyFacts<'_>| SmallModelReplyCheck.check(&facts);
    let leaked = "The log level in app.cfg is debug.";
    assert_eq!(
        check(facts(leaked)),
        reminder(
            &crate::texts::recovery_unseen_name("app.cfg", "step 1 finished."),
            false
        )
    );
    // Names the prompt or a tool showed are fine; so is a reply that
    // follows a reminder (no last step), and an answer to a question.
    assert_eq!(check(facts("step.sh printed step 1 finished.")), None);
    assert_eq!(
        check(ReplyFacts {
            last_step: None,
            ..facts(leaked)
        }),
        None
    );
    assert_eq!(
        check(ReplyFacts {
            answers_question: true,
            ..facts(leaked)
        }),
        None
    );
    // Nothing is concluded when the shown text was too long to keep.
    assert_eq!(
        check(ReplyFacts {
            shown: None,
            ..facts(leaked)
        }),
        None
    );
}

#[test]
fn a_change_written_to_a_copy_is_questioned() {
    let written = ["steps_reversed.txt".to_string()];
    let prompt = "Reverse the order of the lines in steps.txt.";
    let facts = |reply| ReplyFacts {
        may_have_written: true,
        written: &written,
        ..after_a_step(reply, prompt)
    };
    let check = |facts: ReplyFacts<'_>| SmallModelReplyCheck.check(&facts);
    assert_eq!(
        check(facts("Reversed.")),
        reminder(
            &crate::texts::recovery_wrote_a_copy("steps_reversed.txt", "steps.txt"),
            true
        )
    );
    assert_eq!(
        check(ReplyFacts {
            answers_question: true,
            ..facts("Reversed.")
        }),
        None
    );
    let both = ["steps_reversed.txt".to_string(), "steps.txt".to_string()];
    assert_eq!(
        check(ReplyFacts {
            written: &both,
            ..facts("Reversed.")
        }),
        None
    );
}
