//! Processes as `/proc` shows them (Linux): which members of a process
//! group are still alive, for tests that check a killed command left
//! nothing behind.

/// Pids of live (non-zombie) processes whose process group is `pgid`.
pub fn live_members_of_group(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut live = Vec::new();
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`; comm may contain spaces and `)`.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            live.push(pid);
        }
    }
    live
}
