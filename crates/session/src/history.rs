//! The one rule for appending a message to a history, shared by the engine
//! (live) and the transcript reader (replay) so both build the same list:
//! a user message that follows a user message is merged into it (roles
//! alternate as the API requires).

use orbit_protocol::{Message, Role};

/// Appends `message` to `history`, merging a user message into a user
/// message before it. Returns whether a new entry was added (false when
/// merged).
pub fn push_message(history: &mut Vec<Message>, message: Message) -> bool {
    match history.last_mut() {
        Some(last) if last.role == Role::User && message.role == Role::User => {
            last.content.extend(message.content);
            false
        }
        _ => {
            history.push(message);
            true
        }
    }
}
