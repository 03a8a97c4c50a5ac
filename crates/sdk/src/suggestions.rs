//! Permission suggestions, both ways: the `permission_suggestions` a
//! `can_use_tool` request offers (Claude Code's `PermissionUpdate` shapes)
//! and the one an SDK's allow answer picks back (`updatedPermissions`).
//!
//! Data flow: the permission gate's ask carries the rule "always allow"
//! would add (`ApprovalRequest::suggested_rule`, from
//! `orbit_permissions::suggested_rule`) → [`for_ask`] offers it as an
//! `addRules` update (plus `setMode acceptEdits` for a file edit, as Claude
//! Code) → the SDK's `canUseTool` gets them as `suggestions` → an allow
//! answer that sends an allow rule back becomes `Approval::AllowAlways`
//! ([`chosen_rule`]), so the engine allows such calls from then on.

use orbit_engine::ApprovalRequest;
use serde_json::{Value, json};

/// Tools whose asks also offer switching to `acceptEdits`.
const EDIT_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// The suggestions for one ask, in Claude Code's order.
pub fn for_ask(ask: &ApprovalRequest) -> Vec<Value> {
    let mut out = Vec::new();
    if EDIT_TOOLS.contains(&ask.tool_name.as_str()) {
        out.push(json!({"type": "setMode", "mode": "acceptEdits", "destination": "session"}));
    }
    if let Some(rule) = &ask.suggested_rule {
        out.push(json!({
            "type": "addRules",
            "rules": [rule_value(rule)],
            "behavior": "allow",
            "destination": "localSettings",
        }));
    }
    out
}

/// `Bash(npm test:*)` as `{"toolName": "Bash", "ruleContent": "npm test:*"}`;
/// a bare name has no `ruleContent`.
fn rule_value(rule: &str) -> Value {
    match rule.split_once('(') {
        Some((tool, rest)) if rest.ends_with(')') => json!({
            "toolName": tool,
            "ruleContent": &rest[..rest.len() - 1],
        }),
        _ => json!({ "toolName": rule }),
    }
}

/// The first allow rule an answer's `updatedPermissions` adds to a
/// settings file, in rule syntax (`Bash(npm test:*)`); None when it adds
/// none. orbit's "always allow" keeps the rule for the session and writes
/// it to the local rules file, so a rule meant for the `session` only is
/// not taken (that call runs; the next like it asks again).
pub fn chosen_rule(answer: &Value) -> Option<String> {
    let updates = answer.get("updatedPermissions")?.as_array()?;
    updates
        .iter()
        .filter(|u| u["type"] == "addRules" && u["behavior"] == "allow")
        .filter(|u| u["destination"] != "session")
        .flat_map(|u| u["rules"].as_array().into_iter().flatten())
        .find_map(|rule| {
            let tool = rule.get("toolName")?.as_str()?;
            Some(match rule.get("ruleContent").and_then(Value::as_str) {
                Some(content) => format!("{tool}({content})"),
                None => tool.to_string(),
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(tool: &str, rule: Option<&str>) -> ApprovalRequest {
        ApprovalRequest {
            tool_name: tool.into(),
            tool_use_id: "toolu_1".into(),
            input: json!({}),
            reason: String::new(),
            subject: String::new(),
            suggested_rule: rule.map(str::to_string),
        }
    }

    /// A Bash ask offers its rule; a Write ask offers acceptEdits first;
    /// the rule an answer sends back reads as rule syntax again.
    #[test]
    fn suggestions_offer_the_rule_and_answers_pick_it_back() {
        let bash = for_ask(&ask("Bash", Some("Bash(npm test:*)")));
        assert_eq!(
            bash,
            [json!({"type": "addRules",
                "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}],
                "behavior": "allow", "destination": "localSettings"})]
        );
        let write = for_ask(&ask("Write", None));
        assert_eq!(write[0]["mode"], "acceptEdits");
        let answer = json!({"behavior": "allow", "updatedPermissions": bash});
        assert_eq!(chosen_rule(&answer).as_deref(), Some("Bash(npm test:*)"));
        let bare = json!({"updatedPermissions": [{"type": "addRules", "behavior": "allow",
            "rules": [{"toolName": "mcp__calc__add"}], "destination": "localSettings"}]});
        assert_eq!(chosen_rule(&bare).as_deref(), Some("mcp__calc__add"));
        let session = json!({"updatedPermissions": [{"type": "addRules", "behavior": "allow",
            "rules": [{"toolName": "Bash"}], "destination": "session"}]});
        assert_eq!(chosen_rule(&session), None);
        assert_eq!(chosen_rule(&json!({"behavior": "allow"})), None);
    }
}
