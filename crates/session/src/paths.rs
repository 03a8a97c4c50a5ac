//! Where a project's session files live: the one layout shared by
//! transcripts and persisted tool results.
//!
//! ```text
//! <data dir>/projects/<cwd slug>/<session id>.jsonl             the transcript
//! <data dir>/projects/<cwd slug>/<session id>/tool-results/…    persisted results (engine)
//! ```
//!
//! The slug replaces every non-ASCII-alphanumeric char of the absolute cwd
//! with `-` (Claude Code's `sanitizePath`), so `/home/me/my.proj` becomes
//! `-home-me-my-proj`; slugs over [`MAX_SLUG_CHARS`] are cut and get a hash
//! suffix. Ids become one safe path component ([`file_component`]).

use std::path::{Path, PathBuf};

/// Longest slug kept verbatim; longer ones are cut and suffixed with a hash
/// so the directory name stays under the usual 255-byte file-name limit.
pub const MAX_SLUG_CHARS: usize = 200;

/// File extension of a transcript.
pub const TRANSCRIPT_EXTENSION: &str = "jsonl";

/// `<data dir>/projects`: one directory per project.
pub fn projects_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("projects")
}

/// `<data dir>/projects/<cwd slug>`. `cwd` is made absolute (against the
/// process's current directory) if it is not.
pub fn project_dir(data_dir: &Path, cwd: &Path) -> PathBuf {
    let abs_cwd = if cwd.is_absolute() {
        cwd.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(cwd))
            .unwrap_or_else(|_| cwd.to_path_buf())
    };
    projects_dir(data_dir).join(project_slug(&abs_cwd))
}

/// Name of the directory of a session's persisted tool results, inside
/// [`session_dir`].
pub const TOOL_RESULTS_DIR_NAME: &str = "tool-results";

/// `<data dir>/projects/<cwd slug>/<session id>`: the session's own
/// directory (its persisted tool results). Something other than orbit may
/// change what is inside (the Bash sandbox may grant it): orbit writes
/// there only without following links (`orbit_engine::results`).
pub fn session_dir(data_dir: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    project_dir(data_dir, cwd).join(file_component(session_id))
}

/// `<data dir>/projects/<cwd slug>/<session id>.jsonl`.
pub fn transcript_path(data_dir: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    project_dir(data_dir, cwd).join(format!(
        "{}.{TRANSCRIPT_EXTENSION}",
        file_component(session_id)
    ))
}

/// The project directory name for an absolute cwd: every char that is not
/// ASCII alphanumeric becomes `-`. Slugs over [`MAX_SLUG_CHARS`] are cut and
/// get `-<hash>` appended so distinct long paths stay distinct.
pub fn project_slug(abs_cwd: &Path) -> String {
    let raw = abs_cwd.to_string_lossy();
    let slug: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if slug.len() <= MAX_SLUG_CHARS {
        return slug;
    }
    // All chars are ASCII here, so byte slicing is on char boundaries.
    format!("{}-{}", &slug[..MAX_SLUG_CHARS], base36(djb2(&raw)))
}

/// A tool_use id or session id as one safe path component: ASCII
/// alphanumerics, `_` and `-` are kept, anything else (`/`, `.`) becomes `-`,
/// so an id can never escape its directory.
pub fn file_component(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() { "-".to_string() } else { s }
}

/// Whether `id` is a session id orbit accepts on the command line: a UUID
/// in its hyphenated form (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`).
pub fn is_valid_session_id(id: &str) -> bool {
    id.len() == 36 && uuid::Uuid::parse_str(id).is_ok()
}

fn djb2(s: &str) -> u32 {
    s.bytes().fold(5381u32, |h, b| {
        h.wrapping_mul(33).wrapping_add(u32::from(b))
    })
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_sits_beside_the_tool_results_directory() {
        let path = transcript_path(Path::new("/d"), Path::new("/home/me/my.proj"), "abc");
        assert_eq!(
            path,
            PathBuf::from("/d/projects/-home-me-my-proj/abc.jsonl")
        );
        let escaping = transcript_path(Path::new("/d"), Path::new("/p"), "../x");
        assert_eq!(escaping, PathBuf::from("/d/projects/-p/---x.jsonl"));
    }

    #[test]
    fn session_dir_sits_beside_the_transcript() {
        let dir = session_dir(Path::new("/d"), Path::new("/p"), "../x");
        assert_eq!(dir, PathBuf::from("/d/projects/-p/---x"));
        let transcript = transcript_path(Path::new("/d"), Path::new("/p"), "../x");
        assert_eq!(transcript.with_extension(""), dir);
    }

    #[test]
    fn session_ids_must_be_hyphenated_uuids() {
        for (id, ok) in [
            ("123e4567-e89b-12d3-a456-426614174000", true),
            ("123E4567-E89B-12D3-A456-426614174000", true),
            ("123e4567e89b12d3a456426614174000", false),
            ("123e4567-e89b-12d3-a456-42661417400", false),
            ("not-a-uuid", false),
            ("", false),
        ] {
            assert_eq!(is_valid_session_id(id), ok, "{id}");
        }
    }
}
