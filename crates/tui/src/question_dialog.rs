//! The question dialog: an `AskUserQuestion` ask shown one question at a
//! time — its options, then "Other" to type an answer; a multi-select
//! question toggles options with Space and takes them with Enter.
//!
//! Data flow: the permission gate's ask for `AskUserQuestion` reaches the
//! UI like any ask; `crate::dialog` hands it to a [`QuestionDialog`] when
//! the input holds questions. When the last question is answered the call
//! is allowed with the input's `answers` filled (`{"question": "label"}`,
//! several labels joined with `, `), which the tool reports to the model;
//! Esc declines (a denial the model is told about).

use std::collections::BTreeSet;

use crossterm::event::{KeyCode, KeyEvent};
use orbit_engine::{Approval, ApprovalRequest};
use ratatui::text::{Line, Span};
use serde_json::{Map, Value};

use crate::theme::Theme;
use crate::typed_line::{self, Typed};

/// One question as shown.
#[derive(Debug, Clone)]
struct Question {
    text: String,
    header: String,
    /// (label, description)
    options: Vec<(String, String)>,
    multi: bool,
}

/// An ask of one to four questions.
#[derive(Debug)]
pub(crate) struct QuestionDialog {
    input: Value,
    questions: Vec<Question>,
    /// The question on screen.
    at: usize,
    /// The highlighted row (the options, then "Other").
    selected: usize,
    /// Toggled rows of a multi-select question.
    chosen: BTreeSet<usize>,
    /// Typing an "Other" answer.
    other: Option<String>,
    answers: Map<String, Value>,
}

impl QuestionDialog {
    /// The dialog for an ask whose input holds questions (`AskUserQuestion`).
    pub(crate) fn for_request(request: &ApprovalRequest) -> Option<Self> {
        if request.tool_name != "AskUserQuestion" {
            return None;
        }
        let questions: Vec<Question> = request
            .input
            .get("questions")?
            .as_array()?
            .iter()
            .filter_map(|q| {
                let options = q
                    .get("options")?
                    .as_array()?
                    .iter()
                    .filter_map(|o| {
                        let label = o.get("label")?.as_str()?.to_string();
                        let about = o.get("description").and_then(Value::as_str);
                        Some((label, about.unwrap_or_default().to_string()))
                    })
                    .collect();
                Some(Question {
                    text: q.get("question")?.as_str()?.to_string(),
                    header: q
                        .get("header")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    options,
                    multi: q
                        .get("multiSelect")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                })
            })
            .collect();
        (!questions.is_empty()).then(|| Self {
            input: request.input.clone(),
            questions,
            at: 0,
            selected: 0,
            chosen: BTreeSet::new(),
            other: None,
            answers: Map::new(),
        })
    }

    fn question(&self) -> &Question {
        &self.questions[self.at.min(self.questions.len() - 1)]
    }

    /// Rows: the options, then "Other".
    fn rows(&self) -> usize {
        self.question().options.len() + 1
    }

    /// Records `answer` for the question on screen; the final answer once
    /// every question has one.
    fn answer(&mut self, answer: String) -> Option<Approval> {
        let text = self.question().text.clone();
        self.answers.insert(text, Value::String(answer));
        self.at += 1;
        self.selected = 0;
        self.chosen.clear();
        self.other = None;
        if self.at < self.questions.len() {
            return None;
        }
        let mut input = self.input.clone();
        if let Some(object) = input.as_object_mut() {
            object.insert("answers".into(), Value::Object(self.answers.clone()));
        }
        Some(Approval::AllowWithInput { input })
    }

    /// The answer a key gives, if it completes the questions.
    pub(crate) fn handle_key(&mut self, key: KeyEvent) -> Option<Approval> {
        if let Some(text) = &mut self.other {
            match typed_line::edit(text, key.code) {
                Typed::Enter if !text.trim().is_empty() => {
                    let text = text.trim().to_string();
                    return self.answer(text);
                }
                Typed::Esc => self.other = None,
                Typed::Enter | Typed::Editing => {}
            }
            return None;
        }
        let rows = self.rows();
        let other_row = rows - 1;
        match key.code {
            KeyCode::Esc => Some(Approval::Deny {
                reason: Some("The user declined to answer the questions.".to_string()),
            }),
            KeyCode::Up => {
                self.selected = self.selected.checked_sub(1).unwrap_or(rows - 1);
                None
            }
            KeyCode::Down | KeyCode::Tab => {
                self.selected = (self.selected + 1) % rows;
                None
            }
            KeyCode::Char(' ') if self.question().multi && self.selected < other_row => {
                if !self.chosen.remove(&self.selected) {
                    self.chosen.insert(self.selected);
                }
                None
            }
            KeyCode::Char(c)
                if c.to_digit(10)
                    .is_some_and(|d| d >= 1 && (d as usize) <= rows) =>
            {
                self.selected = c.to_digit(10).map_or(0, |d| d as usize - 1);
                self.pick(other_row)
            }
            KeyCode::Enter => self.pick(other_row),
            _ => None,
        }
    }

    /// Enter on the highlighted row.
    fn pick(&mut self, other_row: usize) -> Option<Approval> {
        if self.selected == other_row {
            self.other = Some(String::new());
            return None;
        }
        let question = self.question().clone();
        if question.multi && !self.chosen.is_empty() {
            let labels: Vec<&str> = self
                .chosen
                .iter()
                .filter_map(|i| question.options.get(*i).map(|o| o.0.as_str()))
                .collect();
            return self.answer(labels.join(", "));
        }
        let label = question.options.get(self.selected)?.0.clone();
        self.answer(label)
    }

    /// The dialog's rows.
    pub(crate) fn lines(&self, theme: Theme) -> Vec<Line<'static>> {
        let q = self.question();
        let count = if self.questions.len() > 1 {
            format!(" ({}/{})", self.at + 1, self.questions.len())
        } else {
            String::new()
        };
        let mut out = vec![Line::from(vec![
            Span::styled("? ", theme.warn()),
            Span::styled(format!("[{}] ", q.header), theme.dim()),
            Span::styled(q.text.clone(), theme.bold()),
            Span::styled(count, theme.dim()),
        ])];
        for (i, (label, about)) in q.options.iter().enumerate() {
            let mark = match (q.multi, self.chosen.contains(&i)) {
                (true, true) => "[x] ",
                (true, false) => "[ ] ",
                _ => "",
            };
            out.push(Line::from(vec![
                Span::styled(
                    format!("  {}. {mark}{label}", i + 1),
                    theme.choice(i == self.selected),
                ),
                Span::styled(format!("  {about}"), theme.dim()),
            ]));
        }
        let other = q.options.len();
        out.push(Line::from(Span::styled(
            format!("  {}. Other (type an answer)", other + 1),
            theme.choice(self.selected == other),
        )));
        if let Some(text) = &self.other {
            out.push(typed_line::row(theme, "  Answer: ", text));
        } else if q.multi {
            out.push(Line::from(Span::styled(
                "  Space: choose · Enter: done · Esc: decline",
                theme.dim(),
            )));
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;
    use serde_json::json;

    #[test]
    fn answers_each_question_in_turn() {
        let input = json!({"questions": [
            {"question": "Which db?", "header": "DB", "multiSelect": false,
             "options": [{"label": "sqlite", "description": "file"}, {"label": "pg", "description": "server"}]},
            {"question": "Which extras?", "header": "Extras", "multiSelect": true,
             "options": [{"label": "a", "description": ""}, {"label": "b", "description": ""}]}
        ]});
        let mut d = QuestionDialog::for_request(&ApprovalRequest {
            tool_name: "AskUserQuestion".into(),
            tool_use_id: "t".into(),
            input: input.clone(),
            reason: String::new(),
            subject: String::new(),
            suggested_rule: None,
        })
        .unwrap();
        use KeyCode::{Char, Down, Enter};
        let answer = [Down, Enter, Char(' '), Down, Char(' '), Enter]
            .iter()
            .find_map(|k| d.handle_key(KeyEvent::new(*k, KeyModifiers::NONE)));
        let mut want = input;
        want["answers"] = json!({"Which db?": "pg", "Which extras?": "a, b"});
        assert_eq!(answer, Some(Approval::AllowWithInput { input: want }));
    }
}
