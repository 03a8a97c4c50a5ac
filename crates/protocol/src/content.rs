//! Conversation content in the Anthropic Messages API shape.
//!
//! A [`Message`] is a role plus a list of [`ContentBlock`]s. Serialization is
//! exactly what the API accepts, so the engine's history can be sent as is;
//! deserialization also accepts the API's shorthand (`"content": "text"`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person (or the embedder) driving the conversation; also carries tool results.
    User,
    /// The model.
    Assistant,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote the message.
    pub role: Role,
    /// The blocks, in order. Deserialization also accepts a plain string (one text block).
    #[serde(deserialize_with = "content_string_or_blocks")]
    pub content: Vec<ContentBlock>,
}

impl Message {
    /// A user message of one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![ContentBlock::text(text)],
        }
    }

    /// An assistant message with the given blocks.
    pub fn assistant(content: Vec<ContentBlock>) -> Self {
        Self {
            role: Role::Assistant,
            content,
        }
    }

    /// A user message with the given blocks (e.g. tool results).
    pub fn user(content: Vec<ContentBlock>) -> Self {
        Self {
            role: Role::User,
            content,
        }
    }

    /// The tool_use blocks of this message, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUseBlock> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse(t) => Some(t),
            _ => None,
        })
    }

    /// The tool_result blocks of this message, in order.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResultBlock> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolResult(t) => Some(t),
            _ => None,
        })
    }

    /// Concatenated text of all text blocks.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for b in &self.content {
            if let ContentBlock::Text { text, .. } = b {
                out.push_str(text);
            }
        }
        out
    }
}

fn content_string_or_blocks<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<ContentBlock>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Blocks(Vec<ContentBlock>),
    }
    Ok(match Either::deserialize(d)? {
        Either::Text(text) => vec![ContentBlock::text(text)],
        Either::Blocks(blocks) => blocks,
    })
}

/// A content block of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Citations as the API returned them, kept opaque.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        citations: Option<Value>,
    },
    /// A call of a tool by the model.
    ToolUse(ToolUseBlock),
    /// The answer to a tool call.
    ToolResult(ToolResultBlock),
    /// Extended thinking of the model.
    Thinking {
        /// The thinking text.
        thinking: String,
        /// The API's signature over the thinking, sent back unchanged.
        #[serde(default)]
        signature: String,
    },
    /// Thinking the API returns only in encrypted form.
    RedactedThinking {
        /// The encrypted thinking, sent back unchanged.
        data: String,
    },
    /// An image.
    Image {
        /// Where the image data is.
        source: ImageSource,
    },
}

impl ContentBlock {
    /// A text block without citations.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            citations: None,
        }
    }

    /// A call of tool `name` with `input`, as the model sends it.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        ContentBlock::ToolUse(ToolUseBlock {
            id: id.into(),
            name: name.into(),
            input,
        })
    }
}

/// A call of a tool by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// The call's id (`toolu_…`), echoed by its tool_result.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The parsed input. When the model sent input that is not valid JSON the
    /// client stores `{}` here (the API requires an object) and reports the
    /// raw text separately (see `StreamEvent::ContentBlockComplete`).
    #[serde(default = "empty_object")]
    pub input: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// The answer to one tool_use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    /// The id of the tool_use this answers.
    pub tool_use_id: String,
    /// The result itself.
    pub content: ToolResultContent,
    /// `Some(true)` when the result is an error; omitted otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

impl ToolResultBlock {
    /// A text result; `is_error` false leaves the field out.
    pub fn text(tool_use_id: impl Into<String>, text: impl Into<String>, is_error: bool) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: ToolResultContent::Text(text.into()),
            is_error: is_error.then_some(true),
        }
    }

    /// Whether the result is marked as an error.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

/// tool_result content: a plain string or a list of text/image blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// A plain string.
    Text(String),
    /// A list of text and image blocks.
    Blocks(Vec<ToolResultContentBlock>),
}

impl ToolResultContent {
    /// Size in chars of the text parts (images count as 0); what the result
    /// budget measures.
    pub fn text_len_chars(&self) -> usize {
        match self {
            ToolResultContent::Text(t) => t.chars().count(),
            ToolResultContent::Blocks(bs) => bs
                .iter()
                .map(|b| match b {
                    ToolResultContentBlock::Text { text } => text.chars().count(),
                    ToolResultContentBlock::Image { .. }
                    | ToolResultContentBlock::Document { .. } => 0,
                })
                .sum(),
        }
    }

    /// Concatenated text parts.
    pub fn as_text(&self) -> String {
        match self {
            ToolResultContent::Text(t) => t.clone(),
            ToolResultContent::Blocks(bs) => bs
                .iter()
                .filter_map(|b| match b {
                    ToolResultContentBlock::Text { text } => Some(text.as_str()),
                    ToolResultContentBlock::Image { .. }
                    | ToolResultContentBlock::Document { .. } => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    /// Appends `line`: to the text after a newline (when there is text),
    /// or as a last text block.
    pub fn push_line(&mut self, line: &str) {
        match self {
            ToolResultContent::Text(text) => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(line);
            }
            ToolResultContent::Blocks(blocks) => blocks.push(ToolResultContentBlock::Text {
                text: line.to_string(),
            }),
        }
    }

    /// Whether any part is an image.
    pub fn has_image(&self) -> bool {
        matches!(self, ToolResultContent::Blocks(bs) if bs.iter().any(|b| matches!(b, ToolResultContentBlock::Image { .. })))
    }

    /// Whether any part is a document (a PDF).
    pub fn has_document(&self) -> bool {
        matches!(self, ToolResultContent::Blocks(bs) if bs.iter().any(|b| matches!(b, ToolResultContentBlock::Document { .. })))
    }
}

/// A block inside tool_result content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolResultContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image {
        /// Where the image data is.
        source: ImageSource,
    },
    /// A document (a PDF, `media_type` `application/pdf`), as the Messages
    /// API takes it: `{"type":"document","source":{"type":"base64",…}}`.
    Document {
        /// Where the document's bytes are.
        source: ImageSource,
    },
}

/// Image data, as the API takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    /// Inline data.
    Base64 {
        /// MIME type, e.g. `image/png`.
        media_type: String,
        /// The bytes, base64-encoded.
        data: String,
    },
    /// An image the API fetches itself.
    Url {
        /// The image's URL.
        url: String,
    },
}
