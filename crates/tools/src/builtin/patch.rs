//! The unified-diff hunks of one file change, for Edit's and Write's
//! [`orbit_tool::FileChange`] detail: computed where the change happens,
//! from the content the tool read and the content it wrote (`similar`,
//! [`PATCH_CONTEXT_LINES`] lines of context), in the shape of Claude
//! Code's `structuredPatch`.

use orbit_tool::PatchHunk;

/// Lines of context around each change.
pub(crate) const PATCH_CONTEXT_LINES: usize = 3;

/// The hunks `old` → `new`: 1-based starts, lines prefixed with ` `, `-` or
/// `+`, without their newlines.
pub(crate) fn structured_patch(old: &str, new: &str) -> Vec<PatchHunk> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut unified = diff.unified_diff();
    unified.context_radius(PATCH_CONTEXT_LINES);
    unified
        .iter_hunks()
        .filter_map(|hunk| {
            let (first, last) = (hunk.ops().first()?, hunk.ops().last()?);
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            let lines: Vec<String> = hunk
                .iter_changes()
                .map(|change| {
                    let sign = match change.tag() {
                        similar::ChangeTag::Equal => ' ',
                        similar::ChangeTag::Delete => '-',
                        similar::ChangeTag::Insert => '+',
                    };
                    let text = change.value();
                    format!("{sign}{}", text.strip_suffix('\n').unwrap_or(text))
                })
                .collect();
            Some(PatchHunk {
                old_start: old_range.start as u64 + 1,
                old_lines: old_range.len() as u64,
                new_start: new_range.start as u64 + 1,
                new_lines: new_range.len() as u64,
                lines,
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// One changed line among others: one hunk with its context; two
    /// changes far apart: two hunks; no change: none.
    #[test]
    fn hunks_carry_their_context() {
        let hunks = structured_patch("one\ntwo\nthree\nfour\n", "one\ntwo\nTHREE\nfour\n");
        assert_eq!(hunks.len(), 1);
        assert_eq!((hunks[0].old_start, hunks[0].old_lines), (1, 4));
        assert_eq!(
            hunks[0].lines,
            [" one", " two", "-three", "+THREE", " four"]
        );
        let old: String = (1..=12).map(|n| format!("line {n}\n")).collect();
        let new = old.replace("line 2\n", "line two\n") + "line 13\n";
        assert_eq!(structured_patch(&old, &new).len(), 2);
        assert!(structured_patch("same\n", "same\n").is_empty());
    }
}
