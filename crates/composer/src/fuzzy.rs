//! Fuzzy matching for the completion popups: a case-insensitive subsequence
//! match scored to favour hits in the basename, at word boundaries and in
//! runs.
//!
//! Data flow: [`score`] takes a query and one candidate path and returns a
//! score (higher is better) or `None` when the query is not a subsequence.
//! Two windows are scored — the tightest window that starts at the leftmost
//! possible match, and the one ending at the rightmost match (which favours
//! the basename) — and the better one wins. Every pass is linear in the
//! candidate's length, so ranking 20,000 paths fits well inside a keystroke.

/// Points for each matched character.
const SCORE_MATCH: i32 = 16;
/// Extra points when a match directly follows the previous one.
const BONUS_CONSECUTIVE: i32 = 24;
/// Extra points for a match at the start of a path component or word.
const BONUS_BOUNDARY: i32 = 20;
/// Extra points for a match inside the basename.
const BONUS_BASENAME: i32 = 12;
/// Points lost per unmatched character inside the matched window.
const PENALTY_GAP: i32 = 2;
/// Points lost per this many characters of candidate length.
const LENGTH_PENALTY_DIVISOR: usize = 8;

/// Scores `candidate` against `query`, ignoring ASCII case; `None` when the
/// query's characters do not all appear in order.
pub fn score(query: &str, candidate: &str) -> Option<i32> {
    let query = query.to_ascii_lowercase();
    let lower = candidate.to_ascii_lowercase();
    score_lower(
        query.as_bytes(),
        lower.as_bytes(),
        basename_start(candidate),
    )
}

/// Ranks `candidates` best first, dropping the ones that do not match; ties
/// go to the shorter, then the alphabetically first candidate.
pub fn rank<'a>(query: &str, candidates: &[&'a str]) -> Vec<&'a str> {
    let mut scored: Vec<(i32, &str)> = candidates
        .iter()
        .filter_map(|c| score(query, c).map(|s| (s, *c)))
        .collect();
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(b.1))
    });
    scored.into_iter().map(|(_, c)| c).collect()
}

/// The byte offset where the last path component starts.
pub(crate) fn basename_start(path: &str) -> usize {
    path.trim_end_matches('/').rfind('/').map_or(0, |i| i + 1)
}

/// [`score`] on pre-lowercased bytes with a known basename offset.
pub(crate) fn score_lower(query: &[u8], cand: &[u8], base: usize) -> Option<i32> {
    let length_penalty = i32::try_from(cand.len() / LENGTH_PENALTY_DIVISOR).unwrap_or(i32::MAX);
    let Some(&last) = query.last() else {
        return Some(-length_penalty);
    };
    // Rightmost window: match backwards from the end.
    let mut qi = query.len();
    let mut right_start = None;
    for i in (0..cand.len()).rev() {
        if cand[i] == query[qi - 1] {
            qi -= 1;
            if qi == 0 {
                right_start = Some(i);
                break;
            }
        }
    }
    let right_start = right_start?;
    // Leftmost window: match forwards to find its end, then backwards from
    // that end to find the tightest start.
    let mut qi = 0;
    let mut left_end = 0;
    for (i, &b) in cand.iter().enumerate() {
        if b == query[qi] {
            qi += 1;
            if qi == query.len() {
                left_end = i;
                break;
            }
        }
    }
    let mut qi = query.len();
    let mut left_start = left_end;
    for i in (0..=left_end).rev() {
        if cand[i] == query[qi - 1] {
            qi -= 1;
            if qi == 0 {
                left_start = i;
                break;
            }
        }
    }
    debug_assert_eq!(cand[left_end], last);
    let right = window_score(query, cand, base, right_start);
    let best = if left_start == right_start {
        right
    } else {
        right.max(window_score(query, cand, base, left_start))
    };
    Some(best - length_penalty)
}

/// Scores the greedy forward match of `query` in `cand` from `start`.
fn window_score(query: &[u8], cand: &[u8], base: usize, start: usize) -> i32 {
    let mut total = 0;
    let mut qi = 0;
    let mut prev: Option<usize> = None;
    for (i, &b) in cand.iter().enumerate().skip(start) {
        if qi == query.len() {
            break;
        }
        if b != query[qi] {
            continue;
        }
        let mut s = SCORE_MATCH;
        if prev.is_some_and(|p| p + 1 == i) {
            s += BONUS_CONSECUTIVE;
        }
        if i == 0 || matches!(cand[i - 1], b'/' | b'_' | b'-' | b'.' | b' ') {
            s += BONUS_BOUNDARY;
        }
        if i >= base {
            s += BONUS_BASENAME;
        }
        total += s;
        prev = Some(i);
        qi += 1;
    }
    let span = prev.map_or(0, |p| p + 1 - start);
    let gaps = i32::try_from(span.saturating_sub(query.len())).unwrap_or(i32::MAX / 4);
    total - gaps * PENALTY_GAP
}
