//! Asks go to the session's `Approver` (issue 12): the engine awaits it,
//! runs an approved call, reports a refused one in `permission_denials`
//! with the person's reason, and keeps an "always allow" rule for the rest
//! of the session and in the rules file (merged into what was there).

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use orbit_engine::{Approval, ApprovalRequest, Approver, SharedApprover};
use orbit_permissions::PermissionMode;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::support::{builtin, config, engine, last_results, result, result_text, run};

/// Answers with `answer` and records every request it saw.
struct Scripted {
    answer: Approval,
    seen: Arc<Mutex<Vec<ApprovalRequest>>>,
}

#[async_trait]
impl Approver for Scripted {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.seen.lock().unwrap().push(request.clone());
        self.answer.clone()
    }
}

fn write_call(id: &str, file: &str) -> Reply {
    Reply::tool_use(id, "Write", json!({"file_path": file, "content": "x"}))
}

#[tokio::test]
async fn answers_decide_and_always_allow_is_kept_and_persisted() {
    // (answer, file written?, denial reason shown to the model)
    let table = [
        (Approval::Allow, true, None),
        (
            Approval::Deny {
                reason: Some("not today".into()),
            },
            false,
            Some("not today"),
        ),
        (
            Approval::AllowAlways {
                rule: "Write(./out/**)".into(),
            },
            true,
            None,
        ),
    ];
    for (answer, written, reason) in table {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let rules = root.join(".orbit/settings.local.json");
        std::fs::create_dir_all(rules.parent().unwrap()).unwrap();
        std::fs::write(
            &rules,
            r#"{"model": "opus", "permissions": {"deny": ["Bash"]}}"#,
        )
        .unwrap();
        let server = FakeAnthropic::start(vec![
            write_call("toolu_1", "out/a.txt"),
            write_call("toolu_2", "out/b.txt"),
            Reply::text("done"),
        ]);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut cfg = config(&root);
        cfg.permissions.mode = PermissionMode::Default;
        cfg.approver = Some(SharedApprover(Arc::new(Scripted {
            answer: answer.clone(),
            seen: Arc::clone(&seen),
        })));
        cfg.rules_file = Some(rules.clone());
        let mut engine = engine(&server, cfg, vec![builtin("Write")]);
        let events = run(&mut engine, "write").await;
        let res = result(&events);
        assert_eq!(root.join("out/a.txt").exists(), written, "{answer:?}");
        let asked = seen.lock().unwrap().clone();
        assert_eq!(asked[0].tool_name, "Write");
        assert_eq!(
            asked[0]
                .suggested_rule
                .as_deref()
                .map(|r| r.starts_with("Edit(//")),
            Some(true)
        );
        let persisted: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&rules).unwrap()).unwrap();
        match &answer {
            Approval::AllowAlways { rule } => {
                // The second call matched the new rule: asked once only.
                assert_eq!(asked.len(), 1);
                assert!(root.join("out/b.txt").exists());
                assert_eq!(
                    persisted,
                    json!({"model": "opus", "permissions": {"deny": ["Bash"], "allow": [rule]}})
                );
            }
            _ => {
                assert_eq!(asked.len(), 2, "{answer:?}");
                assert_eq!(persisted["permissions"].get("allow"), None);
            }
        }
        if let Some(reason) = reason {
            assert_eq!(res.permission_denials.len(), 2);
            let results = last_results(engine.messages());
            assert_eq!(result_text(&results[0]), reason);
        } else {
            assert!(res.permission_denials.is_empty(), "{answer:?}");
        }
    }
}
